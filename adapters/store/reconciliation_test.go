package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// tiyin's lines of a day are its transfers sent to the network that day and its card debits
// paid that day, nothing of another day or network; breaks are recorded once however many
// runs find them.
func TestReconciliationLinesAndBreaksOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		transfer := func(network domain.Network, amount int64, processing bool) uuid.UUID {
			tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
				LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: network, CardHolder: "AZIZ KARIMOV",
				Amount: domain.Amount(amount), CreditToken: "CT", Now: t0})
			if err := s.transfers.Create(ctx, tr); err != nil {
				t.Fatal(err)
			}
			if processing {
				if err := s.transfers.Update(ctx, tr.ID(), func(x *domain.Transfer) error { return x.StartProcessing(t0) }); err != nil {
					t.Fatal(err)
				}
			}
			return tr.ID()
		}
		sent := transfer(domain.NetworkUzcard, 100, true)
		transfer(domain.NetworkUzcard, 200, false) // never confirmed: nothing went to the network
		transfer(domain.NetworkHumo, 300, true)    // another network
		r := s.check(t, l.ID())
		if err := s.pay(r.ID(), 5_000, "DBT-7"); err != nil {
			t.Fatal(err)
		}
		day := domain.BusinessDate(t0)
		lines, err := rec.Lines(ctx, ports.StatementQuery{Network: domain.NetworkUzcard, Day: day})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]domain.StatementLine{
			sent.String() + ":CREDIT": {ID: sent.String() + ":CREDIT", Kind: domain.LineCredit, Amount: 100, Status: domain.LineUnknown},
			"DBT-7":                   {ID: "DBT-7", Kind: domain.LineDebit, Amount: 5_000, Status: domain.LineDone},
		}
		if len(lines) != len(want) {
			t.Fatalf("lines %+v, want %d", lines, len(want))
		}
		for _, got := range lines {
			w := want[got.ID]
			if got.Kind != w.Kind || got.Amount != w.Amount || got.Status != w.Status || domain.BusinessDate(got.At) != day {
				t.Fatalf("line %+v, want %+v on %s", got, w, day)
			}
		}
		if other, err := rec.Lines(ctx, ports.StatementQuery{Network: domain.NetworkUzcard, Day: day.AddDate(0, 0, 1)}); err != nil || len(other) != 0 {
			t.Fatalf("the next day's lines: %+v, %v", other, err)
		}
		_, breaks := domain.Reconcile(lines, nil)
		for run := range 2 {
			var added int
			err := s.uow.Do(ctx, func(ctx context.Context) error {
				added, err = rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: "UZCARD", At: t0,
					Breaks: len(breaks)}, breaks)
				return err
			})
			if wantAdded := []int{len(breaks), 0}[run]; err != nil || added != wantAdded {
				t.Fatalf("run %d recorded %d new breaks (%v), want %d", run+1, added, err, wantAdded)
			}
		}
		// Listed with both sides; one explained, once.
		open, err := rec.Breaks(ctx, ports.BreakQuery{Status: "OPEN", Day: day, Limit: 10})
		if err != nil || len(open) != len(breaks) || open[0].Ours == nil || open[0].Theirs != nil || open[0].Kind != domain.BreakMissingAtNetwork {
			t.Fatalf("the open breaks: %+v, %v", open, err)
		}
		explain := func(id uuid.UUID) error {
			return s.uow.Do(ctx, func(ctx context.Context) error {
				return rec.Close(ctx, id, ports.BreakExplained, "the network's file was late", "bob", t0)
			})
		}
		if err := explain(open[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := explain(open[0].ID); !errors.Is(err, domain.ErrWrongState) {
			t.Fatalf("explaining twice: %v", err)
		}
		if err := explain(uuid.New()); !errors.Is(err, ports.ErrBreakNotFound) {
			t.Fatalf("explaining none: %v", err)
		}
		if got, _ := rec.Breaks(ctx, ports.BreakQuery{Status: "EXPLAINED", Limit: 10}); len(got) != 1 || got[0].Note != "the network's file was late" || got[0].WorkedBy != "bob" {
			t.Fatalf("the explained break: %+v", got)
		}
		breaks = breaks[1:] // the explained one is no longer open
		// The open breaks by age: found at t0, they are a day old, then a week, then older.
		for _, c := range []struct {
			at   time.Time
			want ports.BreakAges
		}{{t0.Add(time.Hour), ports.BreakAges{len(breaks)}}, {t0.AddDate(0, 0, 3), ports.BreakAges{0, len(breaks)}},
			{t0.AddDate(0, 0, 10), ports.BreakAges{0, 0, len(breaks)}}, {t0.AddDate(0, 2, 0), ports.BreakAges{0, 0, 0, len(breaks)}}} {
			if got, err := rec.OpenBreaks(ctx, c.at); err != nil || got != c.want {
				t.Fatalf("open breaks at %s: %v (%v), want %v", c.at, got, err, c.want)
			}
		}
	})
}

// The sandbox network's journal keeps a line once, and answers a day's lines of a network.
func TestNetworkJournalKeepsEachLineOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		j := store.NewNetworkJournal(s.db)
		credit := domain.StatementLine{ID: "t1:CREDIT", Kind: domain.LineCredit, Amount: 100, At: t0, Status: domain.LineDone}
		debit := domain.StatementLine{ID: "D-1", Kind: domain.LineDebit, Amount: 7, At: t0, Status: domain.LineDone}
		for _, l := range []domain.StatementLine{credit, credit, debit} {
			if err := j.Record(ctx, domain.NetworkUzcard, l, "", 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Record(ctx, domain.NetworkHumo, domain.StatementLine{ID: "t2:CREDIT", Kind: domain.LineCredit, Amount: 5, At: t0,
			Status: domain.LineDone}, "", 0); err != nil {
			t.Fatal(err)
		}
		lines, err := j.Lines(ctx, ports.StatementQuery{Network: domain.NetworkUzcard, Day: domain.BusinessDate(t0)})
		if err != nil || len(lines) != 2 || lines[0] != credit || lines[1] != debit {
			t.Fatalf("the day's UZCARD lines: %+v, %v", lines, err)
		}
		if next, err := j.Lines(ctx, ports.StatementQuery{Network: domain.NetworkUzcard, Day: domain.BusinessDate(t0).AddDate(0, 0, 1)}); err != nil || len(next) != 0 {
			t.Fatalf("the next day's lines: %+v, %v", next, err)
		}
	})
}

// A run's new breaks are found by the run (a break a run found again keeps the run that found
// it first), and the day's standing counts a source's breaks by status, and only its own.
func TestARunsNewBreaksAndTheDaysStandingAreFound(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		day := domain.BusinessDate(t0)
		brk := func(line string) domain.Break {
			return domain.Break{Kind: domain.BreakMissingInTiyin, LineID: line,
				Theirs: &domain.StatementLine{ID: line, Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineDone}}
		}
		run := func(source string, breaks ...domain.Break) uuid.UUID {
			id := uuid.New()
			if err := s.uow.Do(ctx, func(ctx context.Context) error {
				_, err := rec.Record(ctx, ports.ReconciliationRun{ID: id, Day: day, Source: source, At: t0, Breaks: len(breaks)}, breaks)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return id
		}
		first := run("HUMO", brk("D-1"), brk("D-2"))
		second := run("HUMO", brk("D-1"), brk("D-2"), brk("D-3"))
		run("UZCARD", brk("D-1"))
		if got := must(rec.Breaks(ctx, ports.BreakQuery{RunID: second, Limit: 10})); len(got) != 1 || got[0].LineID != "D-3" {
			t.Fatalf("the second run's new breaks: %+v", got)
		}
		if got := must(rec.Breaks(ctx, ports.BreakQuery{RunID: first, Source: "HUMO", Limit: 10})); len(got) != 2 {
			t.Fatalf("the first run's new breaks: %+v", got)
		}
		explained := must(rec.Breaks(ctx, ports.BreakQuery{RunID: second, Limit: 1}))[0]
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			return rec.Close(ctx, explained.ID, ports.BreakExplained, "late file", "bob", t0)
		}); err != nil {
			t.Fatal(err)
		}
		if got := must(rec.Standing(ctx, day, "HUMO")); len(got) != 2 || got[ports.BreakOpen] != 2 || got[ports.BreakExplained] != 1 {
			t.Fatalf("HUMO's standing: %v", got)
		}
		if got := must(rec.Standing(ctx, day.AddDate(0, 0, 1), "HUMO")); len(got) != 0 {
			t.Fatalf("the next day's standing: %v", got)
		}
	})
}

// tiyin's closing balances are the ledger's at the day's end, by the loan's demand account:
// the demand account less its holds, and the loan; nothing before the loan was issued.
func TestClosingBalancesAreTheLedgersAtTheDaysEnd(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		hold := must(domain.Move(uuid.New(), domain.PostingTransferHold, uuid.New(), t0.Add(time.Hour), 300_000,
			domain.LoanAccount(domain.AccountDemand, l.ID()), domain.LoanAccount(domain.AccountHold, l.ID())))
		nextDay := must(domain.Move(uuid.New(), domain.PostingTransferHold, uuid.New(), t0.AddDate(0, 0, 1), 1_000,
			domain.LoanAccount(domain.AccountDemand, l.ID()), domain.LoanAccount(domain.AccountHold, l.ID())))
		for _, p := range []domain.Posting{hold, nextDay} {
			if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.ledger.Post(ctx, p) }); err != nil {
				t.Fatal(err)
			}
		}
		day := domain.BusinessDate(t0)
		got, err := rec.Balances(ctx, day)
		want := []domain.AccountBalance{{Account: "20208000000000000001", Kind: domain.LineDemand, Balance: 700_000},
			{Account: "20208000000000000001", Kind: domain.LineLoan, Balance: 1_000_000}}
		if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("balances %+v, %v; want %+v", got, err, want)
		}
		if before, err := rec.Balances(ctx, day.AddDate(0, 0, -1)); err != nil || len(before) != 0 {
			t.Fatalf("the day before: %+v, %v", before, err)
		}
	})
}

// The sandbox bank's balances are its disbursements, each once, less the network's credits
// drawn on the account as it made them (a second copy and a failed credit take nothing).
func TestSandboxBalancesAreDisbursementsLessCredits(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		j := store.NewNetworkJournal(s.db)
		for range 2 {
			if err := j.Disburse(ctx, "app-1:LOAN_ISSUANCE", "A", 1_000_000, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Disburse(ctx, "app-2:LOAN_ISSUANCE", "B", 50_000, t0.AddDate(0, 0, 1)); err != nil {
			t.Fatal(err)
		}
		credit := func(id string, amount int64, status domain.LineStatus, copy int) {
			l := domain.StatementLine{ID: id, Kind: domain.LineCredit, Amount: amount, At: t0.Add(time.Minute), Status: status}
			if err := j.Record(ctx, domain.NetworkUzcard, l, "A", copy); err != nil {
				t.Fatal(err)
			}
		}
		credit("t1:CREDIT", 300_000, domain.LineDone, 0)
		credit("t1:CREDIT", 300_000, domain.LineDone, 1)
		credit("t2:CREDIT", 5_000, domain.LineFailed, 0)
		got, err := j.Balances(ctx, domain.BusinessDate(t0))
		if err != nil || len(got) != 1 || got[0] != (domain.AccountBalance{Account: "A", Kind: domain.LineDemand, Balance: 700_000}) {
			t.Fatalf("balances %+v, %v", got, err)
		}
	})
}

// Nodes reconciling the same day at once record each break once: the unique index decides,
// whichever transaction commits first.
func TestBreaksFoundByNodesAtOnceAreRecordedOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		day := domain.BusinessDate(t0)
		var breaks []domain.Break
		for i := range 50 {
			l := &domain.StatementLine{ID: fmt.Sprintf("t%d:CREDIT", i), Kind: domain.LineCredit, Amount: 100, At: t0, Status: domain.LineDone}
			breaks = append(breaks, domain.Break{Kind: domain.BreakMissingAtNetwork, Ours: l, LineID: l.ID})
		}
		const nodes = 6
		added := make([]int, nodes)
		errs := make([]error, nodes)
		var wg sync.WaitGroup
		for n := range nodes {
			wg.Go(func() {
				errs[n] = s.uow.Do(ctx, func(ctx context.Context) error {
					var err error
					added[n], err = rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: "UZCARD", At: t0,
						Breaks: len(breaks)}, breaks)
					return err
				})
			})
		}
		wg.Wait()
		total := 0
		for n := range nodes {
			if errs[n] != nil {
				t.Fatalf("node %d: %v", n, errs[n])
			}
			total += added[n]
		}
		got, err := rec.Breaks(ctx, ports.BreakQuery{Day: day, Limit: 1000})
		if err != nil || total != len(breaks) || len(got) != len(breaks) {
			t.Fatalf("%d nodes added %v (%d in all) and %d are kept (%v), want %d", nodes, added, total, len(got), err, len(breaks))
		}
	})
}

// TestBreakLinesAreTracedToTheirObjects: a credit's line leads to its transfer, a card debit's
// (by network and debit id) to its repayment request, a closing balance's (by the demand
// account's number) to its loan; a debit tiyin never made leads nowhere.
func TestBreakLinesAreTracedToTheirObjects(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
			LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
			Amount: 100, CreditToken: "CT", Now: t0})
		if err := s.transfers.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
		r := s.check(t, l.ID())
		if err := s.pay(r.ID(), 5_000, "DBT-7"); err != nil {
			t.Fatal(err)
		}
		line := func(id string, kind domain.LineKind) *domain.StatementLine {
			return &domain.StatementLine{ID: id, Kind: kind, Amount: 1, At: t0, Status: domain.LineDone}
		}
		credit, debit, balance, stranger := uuid.New(), uuid.New(), uuid.New(), uuid.New()
		account := domain.BalanceLineID(l.AccountNumber(), domain.LineDemand)
		breaks := []ports.BreakRecord{
			{ID: credit, Source: "UZCARD", Break: domain.Break{Kind: domain.BreakMissingAtNetwork, LineID: domain.CreditLineID(tr.ID()),
				Ours: line(domain.CreditLineID(tr.ID()), domain.LineCredit)}},
			{ID: debit, Source: "UZCARD", Break: domain.Break{Kind: domain.BreakAmountDiffers, LineID: "DBT-7",
				Ours: line("DBT-7", domain.LineDebit), Theirs: line("DBT-7", domain.LineDebit)}},
			{ID: balance, Source: domain.SourceCoreBanking, Break: domain.Break{Kind: domain.BreakBalanceDiffers, LineID: account,
				Ours: line(account, domain.LineDemand), Theirs: line(account, domain.LineDemand)}},
			{ID: stranger, Source: "UZCARD", Break: domain.Break{Kind: domain.BreakMissingInTiyin, LineID: "DBT-9",
				Theirs: line("DBT-9", domain.LineDebit)}},
		}
		got, err := rec.Trace(ctx, breaks)
		if err != nil {
			t.Fatal(err)
		}
		want := map[uuid.UUID]ports.LineObject{
			credit:  {Kind: "transfer", ID: tr.ID(), PartnerID: s.partner.ID, LoanID: l.ID(), Account: l.AccountNumber(), Contract: l.ContractNumber()},
			debit:   {Kind: "repayment", ID: r.ID(), PartnerID: s.partner.ID, LoanID: l.ID(), Account: l.AccountNumber(), Contract: l.ContractNumber()},
			balance: {Kind: "loan", ID: l.ID(), PartnerID: s.partner.ID, LoanID: l.ID(), Account: l.AccountNumber(), Contract: l.ContractNumber()},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("traced:\n got %+v\nwant %+v", got, want)
		}
	})
}

// TestALoanIsFoundByItsNumbers: by its contract number (loanId, the number clients quote) and
// by its demand account's number, as typed or without its spaces.
func TestALoanIsFoundByItsNumbers(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		for _, q := range []ports.SearchQuery{
			{Text: l.ContractNumber(), Number: l.ContractNumber(), Limit: 10},
			{Text: "2020 8000 0000 0000 0001", Number: l.AccountNumber(), Limit: 10},
		} {
			hits, err := s.back.Search(ctx, q)
			if err != nil || len(hits) != 1 || hits[0].Kind != "loan" || hits[0].ID != l.ID() || hits[0].Amount != 1_000_000 {
				t.Errorf("%q: %+v %v, want the loan", q.Text, hits, err)
			}
		}
		if hits, err := s.back.Search(ctx, ports.SearchQuery{Text: "20208000999999999999", Number: "20208000999999999999", Limit: 10}); err != nil || len(hits) != 0 {
			t.Errorf("no such account: %+v %v", hits, err)
		}
	})
}
