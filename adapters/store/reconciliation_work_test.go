package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// balanceBreak is account's demand balance apart: tiyin's ours, core banking's theirs.
func balanceBreak(account string, ours, theirs int64, day time.Time) domain.Break {
	id := domain.BalanceLineID(account, domain.LineDemand)
	side := func(v int64) *domain.StatementLine {
		return &domain.StatementLine{ID: id, Kind: domain.LineDemand, Amount: v, At: day, Status: domain.LineDone}
	}
	return domain.Break{Kind: domain.BreakBalanceDiffers, LineID: id, Ours: side(ours), Theirs: side(theirs)}
}

// Issue 47, 3: a balance that stays apart is one open break an account, its days and balances
// updated as days pass, instead of a new break every day; a day run again finds nothing new;
// once the break is explained, a later day's difference is a new break, and the explained one
// cannot be reopened beside it.
func TestOneOpenBalanceBreakAnAccountUpdatedAsDaysPass(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		d1 := domain.BusinessDate(t0)
		run := func(day time.Time, breaks ...domain.Break) int {
			var n int
			if err := s.uow.Do(ctx, func(ctx context.Context) error {
				var err error
				n, err = rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: domain.SourceCoreBanking, At: t0.Add(day.Sub(d1)),
					Breaks: len(breaks)}, breaks)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return n
		}
		open := func() []ports.BreakRecord {
			return must(rec.Breaks(ctx, ports.BreakQuery{Status: ports.BreakOpen, Source: domain.SourceCoreBanking, Limit: 100}))
		}
		if n := run(d1, balanceBreak("A", 0, 100, d1)); n != 1 {
			t.Fatalf("day 1: %d new", n)
		}
		for i := 1; i < 19; i++ {
			day := d1.AddDate(0, 0, i)
			if n := run(day, balanceBreak("A", 0, 100+int64(i), day)); n != 0 {
				t.Fatalf("day %d: %d new, want the account's break seen again", i+1, n)
			}
		}
		d19 := d1.AddDate(0, 0, 18)
		if n := run(d19, balanceBreak("A", 0, 118, d19), balanceBreak("B", 5, 0, d19)); n != 1 {
			t.Fatalf("day 19 again, with B: %d new", n)
		}
		got := open()
		if len(got) != 2 {
			t.Fatalf("%d open balance breaks, want one an account: %+v", len(got), got)
		}
		var a ports.BreakRecord
		for _, b := range got {
			if b.LineID == "A:DEMAND" {
				a = b
			}
		}
		if !a.Day.Equal(d1) || !a.LastDay.Equal(d19) || a.Theirs.Amount != 118 {
			t.Fatalf("A's break spans %s–%s with theirs %d, want %s–%s with 118", a.Day, a.LastDay, a.Theirs.Amount, d1, d19)
		}
		if n := run(d1.AddDate(0, 0, 5), balanceBreak("A", 0, 105, d1)); n != 0 {
			t.Fatalf("a day of the span run again: %d new", n)
		}
		mid := d1.AddDate(0, 0, 9)
		if st := must(rec.Standing(ctx, mid, domain.SourceCoreBanking)); st[ports.BreakOpen] != 1 {
			t.Fatalf("day 10's standing %v: the break spanning it is open", st)
		}
		if got := must(rec.Breaks(ctx, ports.BreakQuery{Day: mid, Limit: 10})); len(got) != 1 || got[0].ID != a.ID {
			t.Fatalf("day 10's breaks: %+v", got)
		}
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			return rec.Close(ctx, a.ID, ports.BreakExplained, "core banking's file", "bob", t0)
		}); err != nil {
			t.Fatal(err)
		}
		if n := run(d19, balanceBreak("A", 0, 118, d19)); n != 0 {
			t.Fatalf("day 19 again after the explanation: %d new", n)
		}
		d20 := d19.AddDate(0, 0, 1)
		if n := run(d20, balanceBreak("A", 0, 120, d20)); n != 1 {
			t.Fatalf("day 20 after the explanation: %d new, want a new break", n)
		}
		err := s.uow.Do(ctx, func(ctx context.Context) error { return rec.Reopen(ctx, a.ID, "wrong", "bob", t0) })
		if !errors.Is(err, domain.ErrWrongState) {
			t.Fatalf("reopening beside the account's open break: %v", err)
		}
	})
}

// Issue 47, 5: an explained break reopens, with the note; an open or resolved one does not.
func TestAnExplainedBreakReopens(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		day := domain.BusinessDate(t0)
		l := &domain.StatementLine{ID: "t1:CREDIT", Kind: domain.LineCredit, Amount: 100_000_000, At: t0, Status: domain.LineDone}
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			_, err := rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: "UZCARD", At: t0, Breaks: 1},
				[]domain.Break{{Kind: domain.BreakMissingAtNetwork, Ours: l, LineID: l.ID}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		b := must(rec.Breaks(ctx, ports.BreakQuery{Limit: 1}))[0]
		do := func(fn func(ctx context.Context) error) error { return s.uow.Do(ctx, fn) }
		if err := do(func(ctx context.Context) error { return rec.Reopen(ctx, b.ID, "x", "bob", t0) }); !errors.Is(err, domain.ErrWrongState) {
			t.Fatalf("reopening an open break: %v", err)
		}
		if err := do(func(ctx context.Context) error { return rec.Close(ctx, b.ID, ports.BreakExplained, "made", "bob", t0) }); err != nil {
			t.Fatal(err)
		}
		if err := do(func(ctx context.Context) error { return rec.Reopen(ctx, b.ID, "reopened: it was lost", "carol", t0) }); err != nil {
			t.Fatal(err)
		}
		if got := must(rec.Break(ctx, b.ID)); got.Status != ports.BreakOpen || got.Note != "reopened: it was lost" || got.WorkedBy != "carol" {
			t.Fatalf("reopened: %+v", got)
		}
		if err := do(func(ctx context.Context) error { return rec.Reopen(ctx, uuid.New(), "x", "bob", t0) }); !errors.Is(err, ports.ErrBreakNotFound) {
			t.Fatalf("reopening no break: %v", err)
		}
	})
}

// Issue 47, 2: breaks are listed a page at a time by keyset, forward and back, filtered by
// status, source and kind, and counted whatever the page.
func TestBreaksArePagedAndCounted(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		day := domain.BusinessDate(t0)
		// Three runs, their breaks found at the same moment within each: the id orders them.
		for r, source := range []string{"UZCARD", "HUMO", "UZCARD"} {
			var breaks []domain.Break
			for i := range 150 {
				kind := domain.BreakMissingAtNetwork
				if i%3 == 0 {
					kind = domain.BreakAmountDiffers
				}
				l := &domain.StatementLine{ID: fmt.Sprintf("r%d-%03d:CREDIT", r, i), Kind: domain.LineCredit, Amount: 100, At: t0, Status: domain.LineDone}
				breaks = append(breaks, domain.Break{Kind: kind, Ours: l, Theirs: l, LineID: l.ID})
			}
			if err := s.uow.Do(ctx, func(ctx context.Context) error {
				_, err := rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: source, At: t0.Add(time.Duration(r) * time.Minute),
					Breaks: len(breaks)}, breaks)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		q := ports.BreakQuery{Status: ports.BreakOpen, Limit: 200}
		seen := map[uuid.UUID]bool{}
		var pages [][]ports.BreakRecord
		for {
			page := must(rec.Breaks(ctx, q))
			for i, b := range page {
				if seen[b.ID] {
					t.Fatalf("break %s on two pages", b.ID)
				}
				seen[b.ID] = true
				if i > 0 && (b.FoundAt.After(page[i-1].FoundAt) || b.FoundAt.Equal(page[i-1].FoundAt) && b.ID.String() > page[i-1].ID.String()) {
					t.Fatalf("page %d is not newest first at %d", len(pages), i)
				}
			}
			pages = append(pages, page)
			if len(page) < q.Limit {
				break
			}
			last := page[len(page)-1]
			q.Cursor = &ports.BreakCursor{FoundAt: last.FoundAt, ID: last.ID}
		}
		if len(seen) != 450 || len(pages) != 3 || len(pages[2]) != 50 {
			t.Fatalf("%d breaks on %d pages", len(seen), len(pages))
		}
		first := pages[1][0]
		back := must(rec.Breaks(ctx, ports.BreakQuery{Status: ports.BreakOpen, Limit: 200, Backward: true,
			Cursor: &ports.BreakCursor{FoundAt: first.FoundAt, ID: first.ID}}))
		if len(back) != 200 || back[0].ID != pages[0][0].ID || back[199].ID != pages[0][199].ID {
			t.Fatalf("the page before the second is not the first: %d breaks", len(back))
		}
		counts := []struct {
			q    ports.BreakQuery
			want int
		}{
			{ports.BreakQuery{Status: ports.BreakOpen}, 450},
			{ports.BreakQuery{Status: ports.BreakOpen, Source: "UZCARD"}, 300},
			{ports.BreakQuery{Status: ports.BreakOpen, Source: "HUMO", Kind: string(domain.BreakAmountDiffers)}, 50},
			{ports.BreakQuery{Status: ports.BreakExplained}, 0},
			{ports.BreakQuery{IDs: []uuid.UUID{first.ID, back[0].ID}}, 2},
			{ports.BreakQuery{Status: ports.BreakOpen, Limit: 101}, 101},
			{ports.BreakQuery{Status: ports.BreakOpen, Source: "HUMO", Limit: 1000}, 150},
		}
		for _, c := range counts {
			if n := must(rec.CountBreaks(ctx, c.q)); n != c.want {
				t.Errorf("count of %+v: %d, want %d", c.q, n, c.want)
			}
		}
		if got := must(rec.Breaks(ctx, ports.BreakQuery{Source: "HUMO", Kind: string(domain.BreakAmountDiffers), Limit: 200})); len(got) != 50 {
			t.Fatalf("HUMO's AMOUNT_DIFFERS: %d", len(got))
		}
	})
}

// Issue 47, 3: a proposal covering several breaks keeps them, and each break's proposals
// include it.
func TestAProposalCoversSeveralBreaks(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		proposals := store.NewProposalRepository(s.db)
		p, err := domain.NewProposal(uuid.New(), domain.AcceptBreak, uuid.Nil, true, "", "UZCARD's file", storedOperator(t, s, "alice").ID(), t0)
		if err != nil {
			t.Fatal(err)
		}
		a, b := uuid.New(), uuid.New()
		if err := p.CoverBreaks(uuid.New(), []uuid.UUID{a, b}); err != nil {
			t.Fatal(err)
		}
		if err := proposals.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if got := must(proposals.Get(ctx, p.ID)); len(got.Breaks) != 2 || got.ObjectID != p.ObjectID {
			t.Fatalf("stored: %+v", got)
		}
		for _, id := range []uuid.UUID{a, b, p.ObjectID} {
			if got := must(proposals.List(ctx, id, 10)); len(got) != 1 || got[0].ID != p.ID || len(got[0].Breaks) != 2 {
				t.Fatalf("the proposals of %s: %+v", id, got)
			}
		}
		if got := must(proposals.List(ctx, uuid.New(), 10)); len(got) != 0 {
			t.Fatalf("another break's: %+v", got)
		}
		if got := must(proposals.List(ctx, uuid.Nil, 10)); len(got) != 1 || len(got[0].Breaks) != 2 {
			t.Fatalf("the open ones: %+v", got)
		}
	})
}

// Issue 47, 3: migration 00031 folds an account's open balance breaks into its oldest, which
// takes the newest's balances and day; the others are closed, each naming the one it was
// folded into. Explained ones and other accounts' are left as they were.
func TestMigrationFoldsAnAccountsOpenBalanceBreaks(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		if err := s.db.MigrateDownTo(ctx, 30); err != nil {
			t.Fatal(err)
		}
		d1 := domain.BusinessDate(t0)
		ids := map[string]uuid.UUID{}
		insert := func(name, account string, day time.Time, status string, theirs int64) {
			ids[name] = uuid.New()
			err := s.db.Gorm.Exec(`INSERT INTO reconciliation_breaks (id, day, network, kind, line_id, line_kind, our_amount, our_status, our_at,
				their_amount, their_status, their_at, status, found_at, run_id) VALUES (?, ?, 'CORE_BANKING', 'BALANCE_DIFFERS', ?, 'DEMAND',
				0, 'DONE', ?, ?, 'DONE', ?, ?, ?, ?)`, ids[name], day, account+":DEMAND", day, theirs, day, status, day.Add(time.Hour), uuid.New()).Error
			if err != nil {
				t.Fatal(err)
			}
		}
		insert("a0", "A", d1.AddDate(0, 0, -1), ports.BreakExplained, 90)
		insert("a1", "A", d1, ports.BreakOpen, 100)
		insert("a2", "A", d1.AddDate(0, 0, 1), ports.BreakOpen, 101)
		insert("a3", "A", d1.AddDate(0, 0, 2), ports.BreakOpen, 102)
		insert("b1", "B", d1.AddDate(0, 0, 1), ports.BreakOpen, 7)
		if err := s.db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		rec := store.NewReconciliationRepository(s.db)
		get := func(name string) ports.BreakRecord { return must(rec.Break(ctx, ids[name])) }
		if a := get("a1"); a.Status != ports.BreakOpen || !a.LastDay.Equal(d1.AddDate(0, 0, 2)) || a.Theirs.Amount != 102 {
			t.Fatalf("the oldest: %s, last day %s, theirs %d", a.Status, a.LastDay, a.Theirs.Amount)
		}
		for _, n := range []string{"a2", "a3"} {
			if b := get(n); b.Status != ports.BreakExplained || !strings.Contains(b.Note, ids["a1"].String()) || b.WorkedBy != "migration 00031" {
				t.Fatalf("%s: %s by %q: %s", n, b.Status, b.WorkedBy, b.Note)
			}
		}
		for i, want := range []int{2, 0} {
			if n, err := s.db.AuditFoldedBreaks(ctx); err != nil || n != want {
				t.Fatalf("auditing the folds, time %d: %d, %v; want %d", i+1, n, err, want)
			}
		}
		entries := must(store.NewAuditLog(s.db).List(ctx, ports.AuditFilter{Action: "break.fold", Limit: 10}))
		if len(entries) != 2 || entries[0].Operator != "migration 00031" || !strings.Contains(entries[0].Detail, ids["a1"].String()) {
			t.Fatalf("the folds' audit: %+v", entries)
		}
		if a0, b1 := get("a0"), get("b1"); a0.Status != ports.BreakExplained || a0.Note != "" || b1.Status != ports.BreakOpen || b1.Theirs.Amount != 7 {
			t.Fatalf("left as they were: %+v %+v", a0, b1)
		}
	})
}
