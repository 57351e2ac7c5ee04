package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports/mocks"
)

// TestPurgeKeepsWhatRetentionKeeps: requests go after the idempotency TTL (never with none),
// events after the events list's window, attach's code counts of days before yesterday, all
// in one unit of work; a failure reports nothing.
func TestPurgeKeepsWhatRetentionKeeps(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		ttl      time.Duration
		eventErr error
		want     application.PurgeReport
	}{
		{"requests, events and code counts", 24 * time.Hour, nil, application.PurgeReport{Requests: 3, Events: 5, CodeCounts: 7}},
		{"no TTL keeps every request", 0, nil, application.PurgeReport{Events: 5, CodeCounts: 7}},
		{"a failure reports nothing", 24 * time.Hour, errors.New("db down"), application.PurgeReport{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			uow, idem, events := mocks.NewMockUnitOfWork(ctrl), mocks.NewMockIdempotencyStore(ctrl), mocks.NewMockEventOutbox(ctrl)
			codes := mocks.NewMockCodeCounter(ctrl)
			inTx := false
			uow.EXPECT().Do(gomock.Any(), gomock.Any()).Times(1).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
				inTx = true
				defer func() { inTx = false }()
				return fn(ctx)
			})
			start := time.Now()
			near := func(want time.Time) func(time.Time) {
				return func(got time.Time) {
					if !inTx || got.Before(want.Add(-time.Minute)) || got.After(want.Add(time.Minute)) {
						t.Errorf("cut-off %s (in a transaction: %v), want about %s", got, inTx, want)
					}
				}
			}
			if tt.ttl > 0 {
				idem.EXPECT().Purge(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, before time.Time) (int64, error) {
					near(start.Add(-tt.ttl))(before)
					return 3, nil
				})
			}
			events.EXPECT().Purge(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, before time.Time) (int64, error) {
				near(start.Add(-application.EventListWindow))(before)
				return 5, tt.eventErr
			})
			if tt.eventErr == nil {
				codes.EXPECT().Purge(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, day time.Time) (int64, error) {
					if want := domain.BusinessDate(start.AddDate(0, 0, -1)); !inTx || !day.Equal(want) {
						t.Errorf("code counts purged before %s (in a transaction: %v), want before %s", day, inTx, want)
					}
					return 7, nil
				})
			}
			rep, err := (&application.PurgeExpiredHandler{UoW: uow, Idempotency: idem, Events: events, CodeCounts: codes}).Handle(context.Background(), application.PurgeExpired{IdempotencyTTL: tt.ttl})
			if !errors.Is(err, tt.eventErr) || rep != tt.want {
				t.Fatalf("report %+v, %v; want %+v, %v", rep, err, tt.want, tt.eventErr)
			}
		})
	}
}
