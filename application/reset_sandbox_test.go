package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports/mocks"
)

// A reset resets the calling partner's sandbox, no other, within the request's transaction, and
// answers the partner's time; outside the sandbox there is nothing to reset.
func TestResetSandboxResetsTheCallersSandboxOnly(t *testing.T) {
	t.Parallel()
	d := setup(t)
	clock := mocks.NewMockSandboxClock(gomock.NewController(t))
	now := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	clock.EXPECT().Reset(gomock.Any(), d.partner).DoAndReturn(func(context.Context, uuid.UUID) (time.Time, error) {
		if !d.inTx {
			t.Error("the reset runs outside the request's transaction")
		}
		return now, nil
	})
	h := application.NewResetSandboxHandler(d.uow, d.requests, clock)
	call := application.Call{PartnerID: d.partner, Key: uuid.NewString(), Endpoint: "/sandbox/reset", Fingerprints: [][]byte{[]byte("{}")}}
	for range 2 { // the same id again replays the answer: one reset
		got, err := h.Handle(context.Background(), call, application.ResetSandbox{PartnerID: d.partner})
		if err != nil || !got.Result.Equal(now) {
			t.Fatalf("reset: %v, %v", got.Result, err)
		}
	}
	failing := errors.New("the database is gone")
	clock.EXPECT().Reset(gomock.Any(), d.partner).Return(time.Time{}, failing)
	if _, err := run(d, application.NewResetSandboxHandler(d.uow, d.requests, clock).Handle, application.ResetSandbox{PartnerID: d.partner}); !errors.Is(err, failing) {
		t.Fatalf("a failing reset answered %v", err)
	}
	if _, err := run(d, application.NewResetSandboxHandler(d.uow, d.requests, nil).Handle, application.ResetSandbox{PartnerID: uuid.New()}); err == nil {
		t.Fatal("a reset outside the sandbox succeeded")
	}
}
