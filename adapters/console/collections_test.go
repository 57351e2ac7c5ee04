package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
)

// TestCollectionsDayInTheConsole walks a collector's day on the console's pages: the loan,
// overdue on its partner's moved clock, is in its bucket's queue; it is given to the collector
// (her queue), a call is logged, a promise made, and the partner's clock moved past its date
// breaks it: the loan comes back flagged; the report shows the promise broken. Each action is
// audited, and a viewer may read but not act.
func TestCollectionsDayInTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	ctx := context.Background()
	officer, viewer := e.as(t, "olga", domain.RoleOfficer), e.as(t, "vic", domain.RoleViewer)
	olga, err := store.NewOperatorRepository(e.db).ByName(ctx, "olga")
	if err != nil {
		t.Fatal(err)
	}
	get := func(who *operatorSession, path string) string {
		t.Helper()
		rec := serve(h, who, http.MethodGet, path, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
		}
		return rec.Body.String()
	}
	post := func(who *operatorSession, path string, form url.Values) int {
		t.Helper()
		form.Set("csrf", who.csrf)
		return serve(h, who, http.MethodPost, path, form).Code
	}
	id := loan.ID().String()
	if strings.Contains(get(&officer, "/console/collections"), id) {
		t.Fatal("a loan not yet overdue is in the queue")
	}
	due, _, _ := loan.FirstUnpaidDue()
	now := e.clock.Now(e.pid)
	if _, err := e.clock.Advance(ctx, e.pid, due.Sub(now)+10*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if page := get(&viewer, "/console/collections?bucket=1"); !strings.Contains(page, id) || !strings.Contains(page, "8-30") {
		t.Fatalf("the 8-30 queue does not show the loan overdue on its partner's clock:\n%s", page)
	}
	if strings.Contains(get(&viewer, "/console/collections?bucket=0"), id) {
		t.Fatal("the loan is in the 1-7 queue too")
	}
	work := "/console/collections/loans/" + id
	if code := post(&viewer, work+"/contact", url.Values{"channel": {"CALL"}, "outcome": {"REACHED"}}); code != http.StatusForbidden {
		t.Fatalf("a viewer logged a contact: %d", code)
	}
	if code := post(&officer, work+"/assign", url.Values{"collector": {olga.ID().String()}}); code != http.StatusSeeOther {
		t.Fatalf("assign: %d", code)
	}
	if !strings.Contains(get(&officer, "/console/collections?view=mine"), id) {
		t.Fatal("the loan is not in olga's queue")
	}
	if strings.Contains(get(&viewer, "/console/collections?view=mine"), id) {
		t.Fatal("olga's loan is in the viewer's own queue")
	}
	if code := post(&officer, work+"/contact", url.Values{"channel": {"CALL"}, "outcome": {"PROMISED"}, "note": {"pays on Friday"}}); code != http.StatusSeeOther {
		t.Fatalf("contact: %d", code)
	}
	if code := post(&officer, work+"/contact", url.Values{"channel": {"FAX"}, "outcome": {"PROMISED"}}); code != http.StatusBadRequest {
		t.Fatalf("an unknown channel: %d, want 400", code)
	}
	today := domain.BusinessDate(e.clock.Now(e.pid))
	if code := post(&officer, work+"/promise", url.Values{"amount": {"500 000"}, "due": {today.AddDate(0, 0, -1).Format(time.DateOnly)}}); code != http.StatusBadRequest {
		t.Fatalf("a promise dated yesterday on the partner's clock: %d, want 400", code)
	}
	if code := post(&officer, work+"/promise", url.Values{"amount": {"500 000"}, "due": {today.AddDate(0, 0, 1).Format(time.DateOnly)}}); code != http.StatusSeeOther {
		t.Fatalf("promise: %d", code)
	}
	page := get(&viewer, work)
	for _, want := range []string{"pays on Friday", "olga", "500 000.00", "OPEN"} {
		if !strings.Contains(page, want) {
			t.Errorf("the loan's collections page does not show %q", want)
		}
	}
	if _, err := e.clock.Advance(ctx, e.pid, 3*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	rep, err := e.app.Collections.SettlePromises.Handle(ctx)
	if err != nil || rep.Broken != 1 {
		t.Fatalf("settle: %+v %v", rep, err)
	}
	if page := get(&officer, "/console/collections?view=flagged"); !strings.Contains(page, id) || !strings.Contains(page, "broken promise") {
		t.Fatal("the loan did not come back flagged after its promise broke")
	}
	if !strings.Contains(get(&viewer, work), "BROKEN") {
		t.Error("the loan's page does not show the promise broken")
	}
	if err := e.app.Collections.SnapshotPAR.Handle(ctx); err != nil {
		t.Fatal(err)
	}
	report := get(&viewer, "/console/collections/report")
	for _, want := range []string{"Roll rates", "<svg", "Broken"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report does not show %q", want)
		}
	}
	auditShows(t, h, &officer, "", "collections.assign", "collections.contact", "collections.promise")
	if rec := serve(h, &viewer, http.MethodGet, "/console/collections?bucket=7", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("a bucket that does not exist: %d", rec.Code)
	}
	if rec := serve(h, &viewer, http.MethodGet, "/console/collections/loans/"+uuid.NewString(), nil); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown loan's collections page: %d", rec.Code)
	}
}

// TestCollectionsBulkRepaymentsAreFourEyed: a file of cash desk and bank transfer repayments is
// previewed line by line (an unknown contract and a reference repeated in the file refused),
// proposed as one, refused to its maker's approval, and posted line by line when a second
// officer approves; the same file again finds its references used.
func TestCollectionsBulkRepaymentsAreFourEyed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	if err := e.loans.Update(ctx, loan.ID(), func(l *domain.Loan) error { return l.AssignContract("4711", e.clock.Now(e.pid)) }); err != nil {
		t.Fatal(err)
	}
	h, _ := e.console(t)
	maker, checker := e.as(t, "mia", domain.RoleOfficer), e.as(t, "ben", domain.RoleOfficer)
	file := "contract,amount,channel,reference,type\n4711,1000,CASH_DESK,KO-1,\n4711,500.50,BANK_TRANSFER,PP-7,EARLY\n9999,100,CASH_DESK,KO-2,\n4711,100,CASH_DESK,KO-1,\n"
	post := func(who *operatorSession, path string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		form.Set("csrf", who.csrf)
		return serve(h, who, http.MethodPost, path, form)
	}
	preview := post(&maker, "/console/collections/bulk/preview", url.Values{"text": {file}})
	page := preview.Body.String()
	if preview.Code != http.StatusOK || !strings.Contains(page, "2 of 4 lines may be posted") || !strings.Contains(page, "no loan has this contract number") ||
		!strings.Contains(page, "the reference is on line 2 of this file already") {
		t.Fatalf("preview: %d\n%s", preview.Code, page)
	}
	if code := post(&checker, "/console/collections/bulk/propose", url.Values{"text": {"not,a,file"}, "reason": {"x"}}).Code; code != http.StatusBadRequest {
		t.Fatalf("a file that is no repayments file: %d, want 400", code)
	}
	rec := post(&maker, "/console/collections/bulk/propose", url.Values{"text": {file}, "reason": {"the branch's cash desk, 24 November"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("propose: %d %s", rec.Code, rec.Body.String())
	}
	at, _ := url.Parse(rec.Header().Get("Location"))
	id := strings.TrimPrefix(at.Path, "/console/collections/bulk/")
	if got := serve(h, &checker, http.MethodGet, at.Path, nil).Body.String(); !strings.Contains(got, "KO-1") || !strings.Contains(got, "/console/proposals/"+id+"/approve") {
		t.Fatalf("the proposal's page:\n%s", got)
	}
	if dash := serve(h, &checker, http.MethodGet, "/console/", nil).Body.String(); !strings.Contains(dash, `href="/console/collections/bulk/`+id+`"`) {
		t.Error("the dashboard's open proposal does not link the file's page")
	}
	payments := func() []domain.Payment {
		t.Helper()
		ps, err := store.NewRepaymentRepository(e.db).ListPayments(ctx, loan.ID())
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	if code := post(&maker, "/console/proposals/"+id+"/approve", url.Values{}).Code; code != http.StatusConflict || len(payments()) != 0 {
		t.Fatalf("the maker's own approval: %d, %d payments", code, len(payments()))
	}
	if code := post(&checker, "/console/proposals/"+id+"/approve", url.Values{"back": {at.Path}}).Code; code != http.StatusSeeOther {
		t.Fatalf("approve: %d", code)
	}
	ps := payments()
	if len(ps) != 2 || ps[0].Channel != domain.ChannelCashDesk || ps[0].Amount != 100_000 || ps[1].Channel != domain.ChannelBankTransfer || ps[1].Amount != 50_050 {
		t.Fatalf("payments %+v", ps)
	}
	again := post(&maker, "/console/collections/bulk/preview", url.Values{"text": {file}}).Body.String()
	if !strings.Contains(again, "0 of 4 lines may be posted") || !strings.Contains(again, "the reference paid another repayment already") {
		t.Fatalf("the same file again:\n%s", again)
	}
	auditShows(t, h, &checker, "", "BULK_REPAYMENTS", "posted 2 repayments of 150050 tiyin in all")
}

// TestCollectionsBulkWriteOffByFilterIsFourEyed: a write-off of every loan of a queue's bucket
// is previewed loan by loan, proposed as one, refused to its maker's approval and applied when
// a second officer approves.
func TestCollectionsBulkWriteOffByFilterIsFourEyed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	due, _, _ := loan.FirstUnpaidDue()
	if _, err := e.clock.Advance(ctx, e.pid, due.Sub(e.clock.Now(e.pid))+10*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	h, _ := e.console(t)
	maker, checker := e.as(t, "mia", domain.RoleOfficer), e.as(t, "ben", domain.RoleOfficer)
	if code := serve(h, &maker, http.MethodGet, "/console/collections/bulk-action?bucket=1&kind=MANUAL_REPAYMENT", nil).Code; code != http.StatusBadRequest {
		t.Fatalf("a bulk repayment by filter: %d, want 400", code)
	}
	page := serve(h, &maker, http.MethodGet, "/console/collections/bulk-action?bucket=1&kind=WRITE_OFF", nil).Body.String()
	if !strings.Contains(page, "1 of 1 loans") || !strings.Contains(page, loan.ID().String()) {
		t.Fatalf("the preview:\n%s", page)
	}
	rec := serve(h, &maker, http.MethodPost, "/console/collections/bulk-action", url.Values{"csrf": {maker.csrf}, "kind": {"WRITE_OFF"}, "bucket": {"1"},
		"reason": {"sold to the collection agency"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("propose: %d %s", rec.Code, rec.Body.String())
	}
	at, _ := url.Parse(rec.Header().Get("Location"))
	id := strings.TrimPrefix(at.Path, "/console/collections/bulk/")
	status := func() domain.LoanStatus {
		t.Helper()
		l, err := e.loans.Get(ctx, loan.ID())
		if err != nil {
			t.Fatal(err)
		}
		return l.Status()
	}
	if code := serve(h, &maker, http.MethodPost, "/console/proposals/"+id+"/approve", url.Values{"csrf": {maker.csrf}}).Code; code != http.StatusConflict || status() != domain.LoanActive {
		t.Fatalf("the maker's own approval: %d, the loan %s", code, status())
	}
	if code := serve(h, &checker, http.MethodPost, "/console/proposals/"+id+"/approve", url.Values{"csrf": {checker.csrf}}).Code; code != http.StatusSeeOther {
		t.Fatalf("approve: %d", code)
	}
	if status() != domain.LoanWrittenOff {
		t.Fatalf("the loan is %s after the approval, want WRITTEN_OFF", status())
	}
	auditShows(t, h, &checker, "", "BULK_LOAN_ACTIONS", "applied to 1 loans")
}
