package domain_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// overdueLoan is the golden loan with its first two instalments unpaid at 2026-04-15: overdue
// principal, interest and penalty are all owed.
func overdueLoan(t *testing.T) *domain.Loan {
	t.Helper()
	loan := goldenLoan()
	pos := position(t, loan, at("2026-04-15"))
	if pos.OverdueInterest == 0 || pos.Penalty == 0 {
		t.Fatalf("the golden loan owes no overdue interest or penalty at 2026-04-15: %+v", pos)
	}
	return loan
}

func TestWaiversForgiveWhatIsOwedAndNoMore(t *testing.T) {
	t.Parallel()
	when := at("2026-04-15")
	owed := position(t, overdueLoan(t), when)
	cases := []struct {
		name    string
		waive   func(*domain.Loan) (int64, error)
		want    int64
		wantErr error
		after   func(p domain.Position) int64 // what is owed of the waived part after
		left    int64
	}{
		{"all the penalty", func(l *domain.Loan) (int64, error) { return l.WaivePenalty(when, 0) }, owed.Penalty, nil,
			func(p domain.Position) int64 { return p.Penalty }, 0},
		{"part of the penalty", func(l *domain.Loan) (int64, error) { return l.WaivePenalty(when, 100) }, 100, nil,
			func(p domain.Position) int64 { return p.Penalty }, owed.Penalty - 100},
		{"more than the penalty", func(l *domain.Loan) (int64, error) { return l.WaivePenalty(when, owed.Penalty+1) }, 0,
			domain.ErrActionAmount, func(p domain.Position) int64 { return p.Penalty }, owed.Penalty},
		{"a negative amount", func(l *domain.Loan) (int64, error) { return l.WaivePenalty(when, -1) }, 0,
			domain.ErrActionAmount, func(p domain.Position) int64 { return p.Penalty }, owed.Penalty},
		{"all the overdue interest", func(l *domain.Loan) (int64, error) { return l.WaiveInterest(when, 0) }, owed.OverdueInterest,
			nil, func(p domain.Position) int64 { return p.OverdueInterest }, 0},
		{"part of the overdue interest", func(l *domain.Loan) (int64, error) { return l.WaiveInterest(when, 7) }, 7, nil,
			func(p domain.Position) int64 { return p.OverdueInterest }, owed.OverdueInterest - 7},
		{"more than the overdue interest", func(l *domain.Loan) (int64, error) { return l.WaiveInterest(when, owed.OverdueInterest+1) },
			0, domain.ErrActionAmount, func(p domain.Position) int64 { return p.OverdueInterest }, owed.OverdueInterest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loan := overdueLoan(t)
			got, err := c.waive(loan)
			if !errors.Is(err, c.wantErr) || got != c.want {
				t.Fatalf("waived %d (%v), want %d (%v)", got, err, c.want, c.wantErr)
			}
			events := loan.TakeEvents()
			if c.wantErr == nil && (len(events) != 1 || events[0].Data.(domain.LoanChanged).Amount != c.want) {
				t.Fatalf("events %+v, want one LoanChanged of %d", events, c.want)
			}
			loan = domain.RestoreLoan(loan.State()) // as stored
			after := position(t, loan, when)
			if left := c.after(after); left != c.left {
				t.Fatalf("owed after: %d, want %d", left, c.left)
			}
			if after.Payoff() != owed.Payoff()-c.want || after.OverduePrincipal != owed.OverduePrincipal {
				t.Fatalf("payoff after %d, want %d less %d", after.Payoff(), owed.Payoff(), c.want)
			}
		})
	}
}

func TestAWaiverStalesAnEarlierCheck(t *testing.T) {
	t.Parallel()
	when := at("2026-04-15")
	loan := overdueLoan(t)
	r, err := domain.NewRepayment(uuid.New(), loan, 0, when)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loan.WaivePenalty(when, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.Payable(loan, when, 1); !errors.Is(err, domain.ErrRepaymentExpired) {
		t.Fatalf("paying a request checked before the waiver: %v, want ErrRepaymentExpired", err)
	}
}

func TestNothingToWaive(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	if _, err := loan.WaivePenalty(at("2026-02-01"), 0); !errors.Is(err, domain.ErrActionAmount) {
		t.Fatalf("waiving the penalty of a loan in good standing: %v", err)
	}
	if _, err := loan.WaiveInterest(at("2026-02-01"), 0); !errors.Is(err, domain.ErrActionAmount) {
		t.Fatalf("waiving the overdue interest of a loan in good standing: %v", err)
	}
}

// A written-off loan's debt stands still; its principal is written off on the accrual basis
// (WRITE_OFF_EXPENSE and the written-off memo) even before its first close, and a later payment,
// a recovery, is applied to the debt as it stood and is recovery income.
func TestWriteOffFreezesTheDebtAndPaymentsRecoverIt(t *testing.T) {
	t.Parallel()
	loan := overdueLoan(t)
	off := at("2026-04-15")
	before := position(t, loan, off)
	posting, err := loan.WriteOff(uuid.New(), off)
	if err != nil || posting == nil {
		t.Fatalf("write-off: %v", err)
	}
	principal := before.NotDuePrincipal + before.OverduePrincipal
	moved := map[domain.AccountKind]int64{}
	for _, e := range posting.Entries {
		moved[e.Account.Kind] += e.Debit - e.Credit
	}
	if moved[domain.AccountWriteOffExpense] != principal || moved[domain.AccountLoan] != -principal ||
		moved[domain.AccountMemoWrittenOff] != principal || moved[domain.AccountWrittenOff] != 0 {
		t.Fatalf("write-off posting %+v, want %d from the loan to the write-off expense and its memo", posting.Entries, principal)
	}
	if _, err := loan.WriteOff(uuid.New(), off); !errors.Is(err, domain.ErrLoanWrittenOff) {
		t.Fatalf("writing off twice: %v", err)
	}
	loan = domain.RestoreLoan(loan.State())
	later := at("2026-09-01")
	if got := position(t, loan, later); got != before || loan.Status() != domain.LoanWrittenOff {
		t.Fatalf("five months after the write-off the loan owes %+v (%s), want %+v", got, loan.Status(), before)
	}
	if due, ok, _ := loan.FirstUnpaidDue(); ok {
		t.Fatalf("a written-off loan is overdue since %s: it left the active portfolio", due)
	}
	p, rposting := repay(t, loan, later, domain.PaymentTerm, 1000)
	if !p.Recovery {
		t.Fatal("a payment after the write-off is not a recovery")
	}
	for _, e := range rposting.Entries {
		if e.Account.Kind == domain.AccountLoan || e.Account.Kind == domain.AccountWrittenOff {
			t.Fatalf("a recovery posts to the loan's principal accounts: %+v", rposting.Entries)
		}
	}
	rest := position(t, loan, later).Payoff()
	repay(t, loan, later, domain.PaymentEarly, rest)
	if loan.Status() != domain.LoanClosed {
		t.Fatalf("a loan recovered in full is %s, want CLOSED", loan.Status())
	}
}

func TestManualRepaymentNeedsItsChannelAndReference(t *testing.T) {
	t.Parallel()
	when := at("2026-02-28")
	cases := []struct {
		name    string
		payment domain.Payment
		wantErr error
	}{
		{"cash desk", domain.Payment{Channel: domain.ChannelCashDesk, DebitID: " R-1 "}, nil},
		{"bank transfer", domain.Payment{Channel: domain.ChannelBankTransfer, DebitID: "PP 12"}, nil},
		{"by card", domain.Payment{Channel: domain.ChannelCard, DebitID: "D"}, domain.ErrProposalIncomplete},
		{"no reference", domain.Payment{Channel: domain.ChannelCashDesk, DebitID: "  "}, domain.ErrProposalIncomplete},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loan := goldenLoan()
			p := c.payment
			p.Type, p.Amount, p.At, p.TransactionID = domain.PaymentTerm, 5000, when, uuid.New()
			r, posting, err := domain.PostManually(uuid.New(), loan, p)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("posting: %v, want %v", err, c.wantErr)
			}
			if err != nil {
				return
			}
			want := domain.AccountCashDesk
			if p.Channel == domain.ChannelBankTransfer {
				want = domain.AccountBankTransfers
			}
			if posting.Entries[0].Account.Kind != want || posting.Entries[0].Debit != 5000 || r.Payment().DebitID == " R-1 " {
				t.Fatalf("posting %+v, payment %+v", posting.Entries, r.Payment())
			}
		})
	}
}
