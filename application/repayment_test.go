package application_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// repayable stores a loan of the test partner issued a week before t0 and a repayment request
// checked at t0, in maps the repository mocks read and write.
type repayable struct {
	loans    map[uuid.UUID]*domain.Loan
	requests map[uuid.UUID]*domain.Repayment
	loan     *domain.Loan
	request  *domain.Repayment
	posted   []domain.Posting
}

func (d *deps) repayable(t *testing.T) *repayable {
	t.Helper()
	pct, _ := domain.PercentFromHundredths(2800)
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), PartnerID: d.partner, ApplicationID: uuid.New(), Amount: 10_000_000,
		MonthPeriod: 6, Rate: pct, ScheduleType: domain.ScheduleAnnuity, ContractNumber: "7001", IssuedAt: t0.AddDate(0, 0, -7)})
	r, err := domain.NewRepayment(uuid.New(), loan, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	s := &repayable{loans: map[uuid.UUID]*domain.Loan{loan.ID(): loan}, requests: map[uuid.UUID]*domain.Repayment{r.ID(): r},
		loan: loan, request: r}
	d.payments.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Repayment, error) {
		r, ok := s.requests[id]
		if !ok {
			return nil, domain.ErrRepaymentNotFound
		}
		return domain.RestoreRepayment(r.State()), nil
	}).AnyTimes()
	d.loans.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Loan, error) {
		return domain.RestoreLoan(s.loans[id].State()), nil
	}).AnyTimes()
	return s
}

// expectPosting lets the pay transaction write: the request and the loan are updated under
// their locks and one posting is made.
func (s *repayable) expectPosting(d *deps) {
	d.payments.EXPECT().Update(gomock.Any(), s.request.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Repayment) error) error {
		r := domain.RestoreRepayment(s.requests[id].State())
		if err := fn(r); err != nil {
			return err
		}
		s.requests[id] = r
		return nil
	})
	d.loans.EXPECT().Update(gomock.Any(), s.loan.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Loan) error) error {
		l := domain.RestoreLoan(s.loans[id].State())
		if err := fn(l); err != nil {
			return err
		}
		s.loans[id] = l
		return nil
	})
	d.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		s.posted = append(s.posted, p)
		return nil
	})
}

func (s *repayable) pay(d *deps, amount int64, debitID string) (application.PaidRepayment, error) {
	return run(d, d.payRepayment().Handle, application.PayRepayment{PartnerID: d.partner, ExternalID: uuid.New(),
		LoanID: "7001", RequestID: s.request.ID(), Type: domain.PaymentTerm, DebitID: debitID, Amount: amount, Network: domain.NetworkHumo})
}

func TestPayPostsTheVerifiedDebitInOneTransaction(t *testing.T) {
	t.Parallel()
	d := setup(t)
	s := d.repayable(t)
	d.cards.EXPECT().LookupDebit(gomock.Any(), ports.DebitQuery{DebitID: "D-1", Network: domain.NetworkHumo, Amount: 500_000, At: t0}).
		Return(domain.Debit{ID: "D-1", Network: domain.NetworkHumo, Amount: 500_000, Succeeded: true}, nil)
	s.expectPosting(d)
	v, err := s.pay(d, 500_000, "D-1")
	if err != nil {
		t.Fatal(err)
	}
	r := s.requests[s.request.ID()]
	if v.Status != domain.RepaymentSuccess || v.RequestID != r.ID() {
		t.Fatalf("status %s", v.Status)
	}
	if r.Payment() == nil || r.Payment().DebitID != "D-1" || d.committed != 1 || len(s.posted) != 1 {
		t.Fatalf("payment %+v, commits %d, postings %d", r.Payment(), d.committed, len(s.posted))
	}
	if p := s.posted[0]; p.Entries[0].Account.Kind != domain.AccountRepaymentClearing || p.Entries[0].Debit != 500_000 || p.ID != r.Payment().TransactionID {
		t.Fatalf("posting %+v", p)
	}
	if s.loans[s.loan.ID()].Repayments() != 1 {
		t.Fatal("the loan did not count the repayment")
	}
}

func TestPayRefusalsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		amount int64
		debit  domain.Debit
		lookup error
		want   error
	}{
		{"debit unknown to the network", 500_000, domain.Debit{}, domain.ErrDebitRejected, domain.ErrDebitRejected},
		{"debit of another amount", 500_000, domain.Debit{ID: "D-1", Network: domain.NetworkHumo, Amount: 400_000, Succeeded: true}, nil, domain.ErrDebitRejected},
		{"debit on another network", 500_000, domain.Debit{ID: "D-1", Network: domain.NetworkUzcard, Amount: 500_000, Succeeded: true}, nil, domain.ErrDebitRejected},
		{"failed debit", 500_000, domain.Debit{ID: "D-1", Network: domain.NetworkHumo, Amount: 500_000}, nil, domain.ErrDebitRejected},
		{"network down", 500_000, domain.Debit{}, ports.ErrGatewayTransient, ports.ErrUnavailable},
		{"amount zero, network not asked", 0, domain.Debit{}, nil, domain.ErrRepaymentAmount},
		{"amount above maxAmount, network not asked", 1 << 40, domain.Debit{}, nil, domain.ErrRepaymentAmount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			s := d.repayable(t)
			if tt.amount > 0 && tt.amount < 1<<40 {
				d.cards.EXPECT().LookupDebit(gomock.Any(), gomock.Any()).Return(tt.debit, tt.lookup)
			}
			_, err := s.pay(d, tt.amount, "D-1")
			if !errors.Is(err, tt.want) || d.committed != 0 || len(s.posted) != 0 {
				t.Fatalf("err %v (want %v), commits %d", err, tt.want, d.committed)
			}
		})
	}
}

func TestPayRefusesAForeignExpiredOrOtherLoansRequest(t *testing.T) {
	t.Parallel()
	d := setup(t)
	s := d.repayable(t)
	pay := func(partner uuid.UUID, loanID string) error {
		_, err := run(d, d.payRepayment().Handle, application.PayRepayment{PartnerID: partner, LoanID: loanID,
			RequestID: s.request.ID(), Type: domain.PaymentEarly, DebitID: "D", Amount: 1, Network: domain.NetworkUzcard})
		return err
	}
	if err := pay(uuid.New(), "7001"); !errors.Is(err, domain.ErrRepaymentNotFound) {
		t.Fatalf("foreign: %v", err)
	}
	if err := pay(d.partner, "7002"); !errors.Is(err, domain.ErrRepaymentNotFound) {
		t.Fatalf("other loan: %v", err)
	}
	s.loans[s.loan.ID()] = domain.RestoreLoan(func() domain.LoanState { st := s.loan.State(); st.Repayments = 1; return st }())
	if err := pay(d.partner, "7001"); !errors.Is(err, domain.ErrRepaymentExpired) {
		t.Fatalf("loan changed since check: %v", err)
	}
}

func TestRepaymentStatusChecksTheExternalID(t *testing.T) {
	t.Parallel()
	d := setup(t)
	s := d.repayable(t)
	other := uuid.New()
	v, err := d.getRepayment().Handle(context.Background(), application.GetRepayment{PartnerID: d.partner, RequestID: s.request.ID()})
	if err != nil || v.Status != domain.RepaymentNew {
		t.Fatalf("%+v %v", v, err)
	}
	_, err = d.getRepayment().Handle(context.Background(), application.GetRepayment{PartnerID: d.partner, RequestID: s.request.ID(), ExternalID: &other})
	if !errors.Is(err, domain.ErrRepaymentNotFound) {
		t.Fatalf("externalId of no pay: %v", err)
	}
}

func TestCheckQuotesTheLoanFromOneRead(t *testing.T) {
	t.Parallel()
	d := setup(t)
	s := d.repayable(t)
	read := ports.LoanForRepayment{Loan: s.loan, DemandBalance: -250_000, ClientName: "Oʻrinboyev Aziz"}
	d.loans.EXPECT().GetForRepayment(gomock.Any(), "7001").Return(read, nil).Times(2)
	d.loans.EXPECT().GetForRepayment(gomock.Any(), "7002").Return(ports.LoanForRepayment{}, domain.ErrLoanNotFound)
	var created []*domain.Repayment
	d.payments.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, r *domain.Repayment) error {
		created = append(created, r)
		return nil
	})
	check := func(partner uuid.UUID, loanID string) (application.RepaymentQuote, error) {
		return run(d, d.checkRepayment().Handle, application.CheckRepayment{PartnerID: partner, LoanID: loanID})
	}
	q, err := check(d.partner, "7001")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.loan.PositionAt(t0)
	if q.ClientName != "Oʻrinboyev Aziz" || q.AccountBalance != 250_000 || q.Debt != want || len(created) != 1 ||
		created[0].LoanID() != s.loan.ID() || created[0].ID() != q.RequestID || created[0].AccountBalance() != 250_000 {
		t.Errorf("quote %+v, created %d", q, len(created))
	}
	if _, err := check(uuid.New(), "7001"); !errors.Is(err, domain.ErrLoanNotFound) {
		t.Errorf("foreign loan: %v", err)
	}
	if _, err := check(d.partner, "7002"); !errors.Is(err, domain.ErrLoanNotFound) {
		t.Errorf("unknown loan: %v", err)
	}
	if len(created) != 1 {
		t.Errorf("%d requests stored, want 1", len(created))
	}
}
