package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// collector stores an operator who works the queue.
func (s *suite) collector(t *testing.T, name string) uuid.UUID {
	t.Helper()
	o, err := domain.NewOperator(uuid.New(), name, domain.RoleOfficer, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.NewOperatorRepository(s.db).Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o.ID()
}

func TestCollectionsQueueByBucketAndCollector(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		coll := store.NewCollectionsRepository(s.db)
		l1 := s.fundedLoan(t, 1_000_000)
		l2 := s.fundedLoan(t, 2_000_000)
		other := s.newPartner(t, "ahead")
		l3 := s.fundedLoanOf(t, other, 3_000_000, time.Time{})
		due, ok, err := l1.FirstUnpaidDue()
		if err != nil || !ok {
			t.Fatalf("first unpaid due: %v %v", ok, err)
		}
		// acme's today is 10 days past the first instalment; the other partner's clock is 40.
		scopes := []ports.QueueScope{{Partners: ports.Partners{Except: []uuid.UUID{other.ID}}, Today: due.AddDate(0, 0, 10)},
			{Partners: ports.Partners{Only: other.ID}, Today: due.AddDate(0, 0, 40)}}
		rows := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Limit: 10}))
		if len(rows) != 3 {
			t.Fatalf("queue has %d loans, want 3", len(rows))
		}
		days := map[uuid.UUID]int{}
		for _, r := range rows {
			days[r.LoanID] = r.DaysOverdue
		}
		if days[l1.ID()] != 10 || days[l3.ID()] != 40 || rows[0].Principal == 0 {
			t.Fatalf("days overdue %v, first row %+v", days, rows[0])
		}
		if got := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 8, MaxDays: 30, Limit: 10})); len(got) != 2 {
			t.Fatalf("bucket 8-30 has %d loans, want 2", len(got))
		}
		if got := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 31, MaxDays: 90, Limit: 10})); len(got) != 1 || got[0].LoanID != l3.ID() {
			t.Fatalf("bucket 31-90 has %v, want the other partner's loan", got)
		}
		page := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Limit: 2}))
		rest := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Limit: 2, After: &page[1]}))
		if len(page) != 2 || len(rest) != 1 || rest[0].LoanID == page[0].LoanID || rest[0].LoanID == page[1].LoanID {
			t.Fatalf("pages %v then %v", page, rest)
		}

		ann, bob := s.collector(t, "ann"), s.collector(t, "bob")
		if err := coll.Assign(ctx, ports.Assignment{LoanID: l2.ID(), Collector: ann, By: bob, At: t0}); err != nil {
			t.Fatal(err)
		}
		mine := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Collector: ann, Limit: 10}))
		if len(mine) != 1 || mine[0].LoanID != l2.ID() || mine[0].CollectorName != "ann" {
			t.Fatalf("ann's queue %+v", mine)
		}
		if err := coll.Assign(ctx, ports.Assignment{LoanID: l2.ID(), Collector: bob, By: ann, At: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if got := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Collector: ann, Limit: 10})); len(got) != 0 {
			t.Fatalf("reassigned loan still in ann's queue: %v", got)
		}
		if got := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Unassigned: true, Limit: 10})); len(got) != 2 {
			t.Fatalf("unassigned: %v", got)
		}
		if err := coll.Flag(ctx, l2.ID(), t0); err != nil {
			t.Fatal(err)
		}
		if err := coll.Flag(ctx, l1.ID(), t0); err != nil {
			t.Fatal(err)
		}
		flagged := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Flagged: true, Limit: 10}))
		if len(flagged) != 2 {
			t.Fatalf("flagged: %v", flagged)
		}
		a, ok, err := coll.Assignment(ctx, l2.ID())
		if err != nil || !ok || a.Collector != bob || !a.Flagged {
			t.Fatalf("assignment %+v %v %v: want bob's, flagged", a, ok, err)
		}
	})
}

func TestCollectionsNotesAndPromiseToPay(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		coll := store.NewCollectionsRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		by := uuid.New()
		for i, o := range []string{"NO_ANSWER", "PROMISED"} {
			n := must(domain.NewContactNote(uuid.New(), l.ID(), "CALL", o, "note", by, t0.Add(time.Duration(i)*time.Minute)))
			if err := coll.AddNote(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		notes := must(coll.Notes(ctx, l.ID(), 10))
		if len(notes) != 2 || notes[0].Outcome != domain.ContactPromised || notes[0].By != by {
			t.Fatalf("notes %+v", notes)
		}
		p := must(domain.NewPromiseToPay(uuid.New(), l.ID(), s.partner.ID, 50_000, domain.BusinessDate(t0).AddDate(0, 0, 3), by, t0))
		if err := coll.AddPromise(ctx, p); err != nil {
			t.Fatal(err)
		}
		open := must(coll.OpenPromises(ctx, ports.Partners{Only: s.partner.ID}, 10))
		if len(open) != 1 || open[0].State() != p.State() {
			t.Fatalf("open promises %+v, want %+v", open, p.State())
		}
		if got := must(coll.OpenPromises(ctx, ports.Partners{Except: []uuid.UUID{s.partner.ID}}, 10)); len(got) != 0 {
			t.Fatalf("another scope sees %v", got)
		}
		r := s.check(t, l.ID())
		if err := s.payAt(r.ID(), 30_000, "d1", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if paid := must(coll.PaidSince(ctx, l.ID(), t0)); paid != 30_000 {
			t.Fatalf("paid since the promise %d, want 30000", paid)
		}
		if paid := must(coll.PaidSince(ctx, l.ID(), t0.Add(2*time.Minute))); paid != 0 {
			t.Fatalf("paid since later %d, want 0", paid)
		}
		later := t0.AddDate(0, 0, 5)
		err := coll.UpdatePromise(ctx, p.ID(), func(p *domain.PromiseToPay) error {
			p.Settle(30_000, later)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := must(coll.Promises(ctx, l.ID(), 10))
		if len(got) != 1 || got[0].Status() != domain.PromiseBroken || got[0].Paid() != 30_000 {
			t.Fatalf("promise after the date %+v", got[0].State())
		}
		if err := coll.UpdatePromise(ctx, uuid.New(), func(*domain.PromiseToPay) error { return nil }); !errors.Is(err, domain.ErrPromiseNotFound) {
			t.Fatalf("unknown promise: %v", err)
		}
		rep := must(coll.Report(ctx, t0, later.Add(time.Hour)))
		if rep.Broken != 1 || rep.Kept != 0 {
			t.Fatalf("report %+v", rep)
		}
	})
}

func TestReminderClaimedOncePerRuleAndCappedPerWeek(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		coll := store.NewCollectionsRepository(s.db)
		// Two loans of one borrower (the same PINFL): the weekly cap counts both.
		l1, l2 := s.fundedLoan(t, 1_000_000), s.fundedLoan(t, 1_000_000)
		due := domain.BusinessDate(t0).AddDate(0, 1, 0)
		first, _, _ := l1.FirstUnpaidDue()
		ids := must(coll.DueForReminder(ctx, ports.Partners{Only: s.partner.ID}, []domain.DateRange{{From: first.AddDate(0, 0, -1), To: first},
			{From: first.AddDate(0, 0, 10), To: first.AddDate(0, 0, 12)}}, uuid.Nil, 10))
		if len(ids) != 2 {
			t.Fatalf("loans due in the windows %v, want both", ids)
		}
		if got := must(coll.DueForReminder(ctx, ports.Partners{}, []domain.DateRange{{From: first.AddDate(0, 0, 1), To: first.AddDate(0, 0, 9)}},
			uuid.Nil, 10)); len(got) != 0 {
			t.Fatalf("loans outside the windows %v", got)
		}
		if got := must(coll.DueForReminder(ctx, ports.Partners{}, []domain.DateRange{{From: first, To: first}}, ids[0], 10)); len(got) != 1 || got[0] != ids[1] {
			t.Fatalf("the page after %s: %v", ids[0], got)
		}
		claim := func(l *domain.Loan, r domain.Reminder, at time.Time) bool {
			t.Helper()
			ok, err := coll.ClaimReminder(ctx, ports.ReminderRecord{ID: uuid.New(), LoanID: l.ID(), PartnerID: s.partner.ID, Reminder: r, At: at},
				at.AddDate(0, 0, -7), 2)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		before := domain.Reminder{Kind: domain.ReminderBeforeDue, Due: due, Amount: 100}
		if !claim(l1, before, t0) {
			t.Fatal("first reminder not claimed")
		}
		if claim(l1, before, t0.Add(time.Hour)) {
			t.Fatal("the same rule and instalment claimed twice")
		}
		late := domain.Reminder{Kind: domain.ReminderOverdue, Bucket: domain.Bucket{From: 8, To: 30}, Due: due, Amount: 100}
		if !claim(l2, late, t0.Add(time.Hour)) {
			t.Fatal("second reminder of the week not claimed")
		}
		third := domain.Reminder{Kind: domain.ReminderOverdue, Bucket: domain.Bucket{From: 1, To: 7}, Due: due, Amount: 100}
		if claim(l1, third, t0.Add(2*time.Hour)) {
			t.Fatal("a third reminder in a week went to the borrower")
		}
		if !claim(l1, third, t0.AddDate(0, 0, 8)) {
			t.Fatal("a new week's reminder not claimed")
		}
		rs := must(coll.Reminders(ctx, l2.ID(), 10))
		if len(rs) != 1 || rs[0].Status != ports.ReminderPending || rs[0].Reminder.Key() != late.Key() {
			t.Fatalf("reminders %+v", rs)
		}
		if err := coll.SettleReminder(ctx, rs[0].ID, ports.ReminderSent, t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if rs = must(coll.Reminders(ctx, l2.ID(), 10)); rs[0].Status != ports.ReminderSent {
			t.Fatalf("settled reminder %+v", rs[0])
		}
	})
}

func TestCollectionsPARSnapshots(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		coll := store.NewCollectionsRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		s.fundedLoan(t, 2_000_000)
		due, _, _ := l.FirstUnpaidDue()
		bs := must(domain.ParseBuckets(domain.DefaultBuckets))
		all := func(today time.Time) []ports.QueueScope { return []ports.QueueScope{{Today: today}} }
		for i, d := range []int{0, 10, 35} {
			day := due.AddDate(0, 0, d)
			if err := coll.SnapshotPAR(ctx, all(day), day, bs); err != nil {
				t.Fatalf("snapshot %d: %v", i, err)
			}
		}
		// A second snapshot of a day replaces the first.
		if err := coll.SnapshotPAR(ctx, all(due.AddDate(0, 0, 35)), due.AddDate(0, 0, 35), bs); err != nil {
			t.Fatal(err)
		}
		h := must(coll.PARHistory(ctx, due, due.AddDate(0, 0, 40)))
		if len(h) != 3 || h[0].Loans != 2 || h[0].PAR1 != 0 || h[1].Loans1 != 2 || h[1].PAR30 != 0 || h[2].Loans30 != 2 || h[2].PAR30 != 3_000_000 {
			t.Fatalf("history %+v", h)
		}
		b := must(coll.BucketsOn(ctx, due.AddDate(0, 0, 35)))
		if len(b) != 2 || b[0].Bucket != 2 {
			t.Fatalf("buckets on day 35 %+v", b)
		}
	})
}

func TestCollectionsBulkLinesRoundTrip(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		bulk := store.NewBulkRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		lines := must(domain.ParseBulkRepayments([]byte("contract,amount,channel,reference,type\nC1,10,CASH_DESK,KO-1,EARLY\nC2,x,CASH_DESK,KO-2,\n")))
		lines[0].LoanID = l.ID()
		batch := uuid.New()
		if err := bulk.AddLines(ctx, batch, lines); err != nil {
			t.Fatal(err)
		}
		got := must(bulk.Lines(ctx, batch))
		if len(got) != 2 || got[0] != lines[0] || got[1].Refusal != lines[1].Refusal || got[1].OK() {
			t.Fatalf("lines %+v, want %+v", got, lines)
		}
		if other := must(bulk.Lines(ctx, uuid.New())); len(other) != 0 {
			t.Fatalf("another batch has %v", other)
		}
	})
}
