package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestTheBooksFindTheClosedDaysNotPosted: the days closed for any clock with no post to the
// general ledger recorded, once each, in day order; a day with a post (acknowledged or not) is
// not among them.
func TestTheBooksFindTheClosedDaysNotPosted(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books := store.NewBooksRepository(s.db)
		d := domain.BusinessDate(t0)
		unposted := func(want ...time.Time) {
			t.Helper()
			got, err := books.UnpostedClosedDays(ctx)
			if err != nil || len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Fatalf("unposted closed days %v (%v), want %v", got, err, want)
			}
		}
		unposted()
		closed := ports.ClosedDay{At: t0, Loans: 1, Postings: 1, Duration: time.Second}
		if err := books.MarkClosed(ctx, "", []time.Time{d.AddDate(0, 0, 1), d}, closed); err != nil {
			t.Fatal(err)
		}
		// A sandbox partner's clock closes its own days: one the system's closed too, one later.
		if err := books.MarkClosed(ctx, s.partner.ID.String(), []time.Time{d.AddDate(0, 0, 1), d.AddDate(0, 0, 2)}, closed); err != nil {
			t.Fatal(err)
		}
		unposted(d, d.AddDate(0, 0, 1), d.AddDate(0, 0, 2))
		post := func(day time.Time) {
			t.Helper()
			j := ports.GLJournal{IdempotencyKey: ports.GLKey(day, 1), Day: day, Sequence: 1,
				Lines: []ports.GLLine{{GL: "16307", Debits: 5}, {GL: "42001", Credits: 5}}}
			if err := s.uow.Do(ctx, func(ctx context.Context) error {
				_, err := books.AddGLPost(ctx, ports.GLPost{Journal: j, CreatedAt: t0})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		post(d.AddDate(0, 0, 1)) // recorded, not acknowledged
		unposted(d, d.AddDate(0, 0, 2))
		post(d)
		post(d.AddDate(0, 0, 2))
		unposted()
	})
}
