package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// check stores a repayment request on the loan as it is stored now.
func (s *suite) check(t *testing.T, loanID uuid.UUID) *domain.Repayment {
	t.Helper()
	ctx := context.Background()
	loan := must(s.loans.Get(ctx, loanID))
	r := must(domain.NewRepayment(uuid.New(), loan, 0, t0))
	if err := s.repayments.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// pay pays the request the way the pay use case does: request lock, loan lock, posting, in
// one transaction.
func (s *suite) pay(requestID uuid.UUID, amount int64, debitID string) error {
	return s.payAt(requestID, amount, debitID, t0)
}

func (s *suite) payAt(requestID uuid.UUID, amount int64, debitID string, at time.Time) error {
	return s.uow.Do(context.Background(), func(ctx context.Context) error {
		var posting domain.Posting
		err := s.repayments.Update(ctx, requestID, func(r *domain.Repayment) error {
			return s.loans.Update(ctx, r.LoanID(), func(l *domain.Loan) error {
				var err error
				posting, err = r.Pay(l, domain.Payment{Type: domain.PaymentEarly, Amount: amount, DebitID: debitID,
					Network: domain.NetworkUzcard, ExternalID: uuid.New(), TransactionID: uuid.New(), At: at})
				return err
			})
		})
		if err != nil {
			return err
		}
		return s.ledger.Post(ctx, posting)
	})
}

func TestRepaymentRoundTripAndPayments(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		r := s.check(t, l.ID())
		got := must(s.repayments.Get(ctx, r.ID()))
		if !reflect.DeepEqual(got.State(), r.State()) {
			t.Fatalf("got %+v\nwant %+v", got.State(), r.State())
		}
		if _, err := s.repayments.Get(ctx, uuid.New()); !errors.Is(err, domain.ErrRepaymentNotFound) {
			t.Fatalf("unknown: %v", err)
		}
		// The same payment applied to a copy of the loan in memory.
		inMemory := must(s.loans.Get(ctx, l.ID()))
		must(must(domain.NewRepayment(uuid.New(), inMemory, 0, t0)).Pay(inMemory,
			domain.Payment{Type: domain.PaymentEarly, Amount: 300_000, TransactionID: uuid.New(), At: t0}))
		if err := s.pay(r.ID(), 300_000, "D-1"); err != nil {
			t.Fatal(err)
		}
		paid := must(s.repayments.Get(ctx, r.ID()))
		if p := paid.Payment(); p == nil || p.Amount != 300_000 || p.Principal+p.Interest+p.Penalty != 300_000 || !p.At.Equal(t0) {
			t.Fatalf("payment %+v", p)
		}
		// The loan's book survives storage: its schedule and position are those of the loan
		// the payment was applied to.
		stored := must(s.loans.Get(ctx, l.ID()))
		if stored.Repayments() != 1 || !reflect.DeepEqual(must(stored.Schedule()), must(inMemory.Schedule())) {
			t.Fatalf("loan after pay: %+v", stored.State())
		}
		later := t0.AddDate(0, 2, 0)
		if must(stored.PositionAt(later)) != must(inMemory.PositionAt(later)) || must(stored.PositionAt(t0)).Payoff() != 1_000_000-paid.Payment().Principal {
			t.Fatalf("position %+v", must(stored.PositionAt(later)))
		}
		second := s.check(t, l.ID())
		if err := s.payAt(second.ID(), 100_000, "D-2", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		list := must(s.repayments.ListPayments(ctx, l.ID()))
		if len(list) != 2 || list[0].DebitID != "D-1" || list[1].DebitID != "D-2" {
			t.Fatalf("payments %+v", list)
		}
		if c := must(s.ledger.Check(ctx)); !c.OK() {
			t.Fatalf("ledger %+v", c)
		}
	})
}

func TestADebitPaysOneRepaymentAndARefusedPayChangesNothing(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		first, other := s.fundedLoan(t, 1_000_000), s.fundedLoan(t, 1_000_000)
		if err := s.pay(s.check(t, first.ID()).ID(), 100_000, "D-1"); err != nil {
			t.Fatal(err)
		}
		r := s.check(t, other.ID())
		if err := s.pay(r.ID(), 100_000, "D-1"); !errors.Is(err, domain.ErrDebitRejected) {
			t.Fatalf("reused debit: %v", err)
		}
		if got := must(s.repayments.Get(ctx, r.ID())); got.Payment() != nil {
			t.Fatal("the refused request was consumed")
		}
		if l := must(s.loans.Get(ctx, other.ID())); l.Repayments() != 0 {
			t.Fatal("the refused payment changed the loan")
		}
		if err := s.pay(r.ID(), 100_000, "D-2"); err != nil {
			t.Fatalf("the request stays payable: %v", err)
		}
	})
}

// TestConcurrentPaysOnOneLoan races five requests checked on the same loan state: exactly
// one is posted, the others find the loan changed since their check.
func TestConcurrentPaysOnOneLoan(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		requests := make([]*domain.Repayment, 5)
		for i := range requests {
			requests[i] = s.check(t, l.ID())
		}
		errs := make([]error, len(requests))
		var wg sync.WaitGroup
		for i, r := range requests {
			wg.Go(func() { errs[i] = s.pay(r.ID(), 100_000, "D-"+r.ID().String()) })
		}
		wg.Wait()
		posted := 0
		for _, err := range errs {
			switch {
			case err == nil:
				posted++
			case !errors.Is(err, domain.ErrRepaymentExpired):
				t.Fatalf("unexpected refusal: %v", err)
			}
		}
		if posted != 1 || len(must(s.repayments.ListPayments(ctx, l.ID()))) != 1 || must(s.loans.Get(ctx, l.ID())).Repayments() != 1 {
			t.Fatalf("%d posted, errors %v", posted, errs)
		}
		if c := must(s.ledger.Check(ctx)); !c.OK() {
			t.Fatalf("ledger %+v", c)
		}
	})
}

// TestARepaymentRequestInItsRequestsTransaction: a new repayment request created in a
// request's transaction is what the transaction's next statement sees; a request that fails
// drops it; and when it cannot be written, nothing of the request is kept, its claim included,
// so the partner's retry runs it again.
func TestARepaymentRequestInItsRequestsTransaction(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		// request runs a check as the use case does, with the repayment's loan id replaced by
		// loanID, then then, then stores the answer.
		request := func(key string, loanID uuid.UUID, then func(ctx context.Context, r *domain.Repayment) error) (*domain.Repayment, error) {
			var r *domain.Repayment
			err := s.request(ctx, key, func(ctx context.Context) error {
				loan, err := s.loans.Get(ctx, l.ID())
				if err != nil {
					return err
				}
				st := must(domain.NewRepayment(uuid.New(), loan, 0, t0)).State()
				st.LoanID = loanID
				r = domain.RestoreRepayment(st)
				if err := s.repayments.Create(ctx, r); err != nil {
					return err
				}
				return then(ctx, r)
			})
			return r, err
		}
		nothing := func(context.Context, *domain.Repayment) error { return nil }
		exists := func(r *domain.Repayment) bool {
			_, err := s.repayments.Get(ctx, r.ID())
			return err == nil
		}
		answered := func(key string) bool { return must(s.uow.Lookup(ctx, s.partner.ID, key)) != nil }

		r, err := request("last", l.ID(), nothing)
		if err != nil || !exists(r) || !answered("last") {
			t.Fatalf("written as the last statement: commit %v, stored %v, answered %v", err, exists(r), answered("last"))
		}

		r, err = request("read-after", l.ID(), func(ctx context.Context, r *domain.Repayment) error {
			got, err := s.repayments.Get(ctx, r.ID())
			if err == nil && !reflect.DeepEqual(got.State(), r.State()) {
				t.Errorf("read in its transaction: got %+v, want %+v", got.State(), r.State())
			}
			return err
		})
		if err != nil || !exists(r) {
			t.Fatalf("read after it in its transaction: commit %v, stored %v", err, exists(r))
		}

		r, err = request("failed", l.ID(), func(context.Context, *domain.Repayment) error { return domain.ErrWrongState })
		if err != nil || exists(r) || !answered("failed") {
			t.Fatalf("failed request: commit %v, stored %v (want dropped), answered %v", err, exists(r), answered("failed"))
		}

		r, err = request("refused", uuid.New(), nothing) // no such loan: its foreign key refuses it
		if err == nil || exists(r) || answered("refused") {
			t.Fatalf("unwritable: commit %v (want an error), stored %v, answered %v (want neither)", err, exists(r), answered("refused"))
		}
	})
}

// TestAUsedReceiptIsKnownBeforeARepaymentIsCreated: a manual repayment's receipt is used once
// it paid one (ReceiptUsed says so before Create refuses another, issue 47, 10), under its
// channel only.
func TestAUsedReceiptIsKnownBeforeARepaymentIsCreated(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		l := s.fundedLoan(t, 1_000_000)
		if used := must(s.repayments.ReceiptUsed(ctx, domain.ChannelCashDesk, "KASSA-17")); used {
			t.Fatal("an unused receipt is used")
		}
		r, _, err := domain.PostManually(uuid.New(), l, domain.Payment{Type: domain.PaymentTerm, Amount: 100_000,
			Channel: domain.ChannelCashDesk, DebitID: "KASSA-17", ExternalID: uuid.New(), TransactionID: uuid.New(), At: t0.AddDate(0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.repayments.Create(ctx, r) }); err != nil {
			t.Fatal(err)
		}
		if used := must(s.repayments.ReceiptUsed(ctx, domain.ChannelCashDesk, "KASSA-17")); !used {
			t.Fatal("a receipt that paid a repayment is unused")
		}
		if used := must(s.repayments.ReceiptUsed(ctx, domain.ChannelBankTransfer, "KASSA-17")); used {
			t.Fatal("the cash desk's receipt is a bank transfer's")
		}
	})
}
