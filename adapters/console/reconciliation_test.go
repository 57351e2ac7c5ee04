package console_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
)

// TestOnlyAClosedDayIsReconciledFromTheConsole (issue 47, 7): "Reconcile now" refuses today and
// any later day with the reason, and its form offers the day closed last, and no later one.
func TestOnlyAClosedDayIsReconciledFromTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	officer := e.as(t, "olga", domain.RoleOfficer)
	today := domain.BusinessDate(time.Now())
	for _, day := range []time.Time{today, today.AddDate(0, 0, 1)} {
		rec := serve(h, &officer, http.MethodPost, "/console/reconciliation/run",
			url.Values{"csrf": {officer.csrf}, "day": {day.Format(time.DateOnly)}})
		expect(t, "reconciling "+day.Format(time.DateOnly), rec, http.StatusBadRequest, "Only a closed business day can be reconciled")
	}
	closed := today.AddDate(0, 0, -1).Format(time.DateOnly)
	expect(t, "the reconciliation page", serve(h, &officer, http.MethodGet, "/console/reconciliation", nil), http.StatusOK,
		`value="`+closed+`" max="`+closed+`"`)
}
