package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// fundedLoan stores an application, its loan (its id is its contract number) and accounts,
// and the issuance posting.
func (s *suite) fundedLoan(t *testing.T, amount int64) *domain.Loan {
	t.Helper()
	return s.fundedLoanOf(t, s.partner, amount, time.Time{})
}

// fundedLoanOf is fundedLoan for the partner, closed at closedAt (zero: open).
func (s *suite) fundedLoanOf(t *testing.T, p domain.Partner, amount int64, closedAt time.Time) *domain.Loan {
	t.Helper()
	ctx := context.Background()
	a := s.newApplication(t, p, uuid.New())
	if err := s.apps.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	l := domain.RestoreLoan(domain.LoanState{ID: id, ApplicationID: a.ID(), PartnerID: p.ID,
		Amount: domain.Amount(amount), MonthPeriod: 12, Rate: must(domain.PercentFromHundredths(2800)),
		ScheduleType: domain.ScheduleAnnuity, AccountNumber: "20208000000000000001", IssuedAt: t0,
		ContractNumber: id.String(), ClosedAt: closedAt})
	err := s.uow.Do(ctx, func(ctx context.Context) error {
		if err := s.loans.Create(ctx, l); err != nil {
			return err
		}
		if err := s.ledger.OpenLoanAccounts(ctx, l.ID()); err != nil {
			return err
		}
		p, err := l.IssuancePosting(uuid.New())
		if err != nil {
			return err
		}
		return s.ledger.Post(ctx, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func hold(t *testing.T, loanID uuid.UUID, amount int64) domain.Posting {
	t.Helper()
	p, err := domain.Move(uuid.New(), domain.PostingTransferHold, uuid.New(), t0, amount,
		domain.LoanAccount(domain.AccountDemand, loanID), domain.LoanAccount(domain.AccountHold, loanID))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoanForRepaymentIsReadInOneStatement(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		s.fundedLoan(t, 2_000_000) // another loan's accounts must not be joined
		if err := s.ledger.Post(ctx, hold(t, l.ID(), 300_000)); err != nil {
			t.Fatal(err)
		}
		got, err := s.loans.GetForRepayment(ctx, l.ContractNumber())
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountDemand, l.ID()))
		if err != nil {
			t.Fatal(err)
		}
		if got.Loan.State() != l.State() || got.DemandBalance != want || want != -700_000 {
			t.Errorf("got loan %+v, demand balance %d; want %+v, %d (-700000)", got.Loan.State(), got.DemandBalance, l.State(), want)
		}
		if name := clientData(t, "31234567890123").FullName(); got.ClientName != name || name == "" {
			t.Errorf("client name %q, want %q", got.ClientName, name)
		}
		if _, err := s.loans.GetForRepayment(ctx, "no-such-contract"); !errors.Is(err, domain.ErrLoanNotFound) {
			t.Errorf("unknown contract: %v", err)
		}
	})
}

func TestLedgerPostsBalancedMovements(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		if err := s.ledger.Post(ctx, hold(t, l.ID(), 300_000)); err != nil {
			t.Fatal(err)
		}
		balances := map[domain.AccountKind]int64{domain.AccountLoan: 1_000_000, domain.AccountDemand: -700_000, domain.AccountHold: -300_000}
		for kind, want := range balances {
			got, err := s.ledger.Balance(ctx, domain.LoanAccount(kind, l.ID()))
			if err != nil || got != want {
				t.Errorf("%s: %d, %v; want %d", kind, got, err, want)
			}
		}
		c, err := s.ledger.Check(ctx)
		if err != nil || !c.OK() || c.Debits != 1_300_000 {
			t.Fatalf("check %+v %v", c, err)
		}
		// In a transaction, the posting's record and entries go with the COMMIT, or ahead of the
		// transaction's next statement, which sees them with the balances.
		err = s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.ledger.Post(ctx, hold(t, l.ID(), 100_000)); err != nil {
				return err
			}
			c, err := s.ledger.Check(ctx)
			if err == nil && (!c.OK() || c.Debits != 1_400_000) {
				t.Errorf("check in the transaction %+v", c)
			}
			return err
		})
		if c := must(s.ledger.Check(ctx)); err != nil || !c.OK() || c.Debits != 1_400_000 {
			t.Fatalf("check after the commit %+v %v", c, err)
		}
	})
}

func TestLedgerFloorRefusesOverdraftAndRollsBack(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.ledger.Post(ctx, hold(t, l.ID(), 600_000)); err != nil {
				return err
			}
			return s.ledger.Post(ctx, hold(t, l.ID(), 600_000))
		})
		if !errors.Is(err, domain.ErrInsufficientFunds) {
			t.Fatalf("overdraft: %v", err)
		}
		if got, _ := s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountDemand, l.ID())); got != -1_000_000 {
			t.Fatalf("the first hold survived the rollback: %d", got)
		}
		if c, _ := s.ledger.Check(ctx); !c.OK() {
			t.Fatalf("check %+v", c)
		}
	})
}

func TestConcurrentHoldsNeverOverdraw(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		const n = 10 // 10 × 150 000 against 1 000 000: exactly 6 fit
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.uow.Do(ctx, func(ctx context.Context) error { return s.ledger.Post(ctx, hold(t, l.ID(), 150_000)) })
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, domain.ErrInsufficientFunds):
				t.Fatalf("unexpected: %v", err)
			}
		}
		if ok != 6 {
			t.Fatalf("%d holds succeeded, want 6", ok)
		}
		if got, _ := s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountDemand, l.ID())); got != -100_000 {
			t.Fatalf("demand balance %d", got)
		}
		if c, _ := s.ledger.Check(ctx); !c.OK() {
			t.Fatalf("check %+v", c)
		}
	})
}

func TestTransferRoundTripAndLists(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
			LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
			Amount: 100, CreditToken: "CT-1", Now: t0})
		if err := s.transfers.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
		dup := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
			LoanID: l.ID(), ExternalID: tr.ExternalID(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "X", Amount: 1, CreditToken: "CT-2", Now: t0})
		if err := s.transfers.Create(ctx, dup); !errors.Is(err, domain.ErrExternalIDUsed) {
			t.Fatalf("duplicate externalId: %v", err)
		}
		got, err := s.transfers.Get(ctx, tr.ID())
		if err != nil || got.State() != tr.State() || got.State().MaskedPAN != "860012******9012" {
			t.Fatalf("round trip: %+v %v", got, err)
		}
		if ids, _ := s.transfers.ListNewBefore(ctx, ports.Partners{}, l.ID(), t0.Add(time.Second), 10); len(ids) != 1 {
			t.Fatalf("new before: %v", ids)
		}
		if ids, _ := s.transfers.ListNewBefore(ctx, ports.Partners{}, uuid.New(), t0.Add(time.Second), 10); len(ids) != 0 {
			t.Fatalf("another loan's: %v", ids)
		}
		if err := s.transfers.Update(ctx, tr.ID(), func(t *domain.Transfer) error { return t.StartProcessing(t0) }); err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.transfers.ListProcessingBefore(ctx, ports.Partners{}, t0.Add(time.Second), 10); len(ids) != 1 {
			t.Fatalf("processing: %v", ids)
		}
		if _, err := s.transfers.Get(ctx, uuid.New()); !errors.Is(err, domain.ErrTransferNotFound) {
			t.Fatalf("unknown: %v", err)
		}
	})
}
