package console_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// overdueLoan stores a loan issued four months before t0 and never paid: it owes overdue
// principal, interest and penalty. Get and Update read and write it through the mocks; the
// events of its updates are kept in c.loanEvents.
func (c *fixture) overdueLoan(t *testing.T) (*domain.Loan, func() *domain.Loan) {
	t.Helper()
	return c.storedLoan(t, c.loanIssued(t0.AddDate(0, -4, 0)))
}

// loanIssued is a loan of 500 000 000 at 28 % for 12 months issued at the moment.
func (c *fixture) loanIssued(at time.Time) *domain.Loan {
	rate, _ := domain.ParsePercent("28")
	penalty, _ := domain.ParsePercent("0.05")
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: uuid.New(), PartnerID: c.partner,
		Amount: 500_000_000, MonthPeriod: 12, Rate: rate, PenaltyDaily: penalty, ScheduleType: domain.ScheduleAnnuity,
		ContractNumber: "4829105736", IssuedAt: at})
}

// storedLoan stores the loan: Get and Update read and write it through the mocks; the events of
// its updates are kept in c.loanEvents. It returns the loan and a reader of it as stored.
func (c *fixture) storedLoan(t *testing.T, loan *domain.Loan) (*domain.Loan, func() *domain.Loan) {
	t.Helper()
	stored := loan.State()
	c.loans.EXPECT().Get(gomock.Any(), loan.ID()).DoAndReturn(func(context.Context, uuid.UUID) (*domain.Loan, error) {
		return domain.RestoreLoan(stored), nil
	}).AnyTimes()
	c.loans.EXPECT().Update(gomock.Any(), loan.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Loan) error) error {
		if !c.inTx {
			t.Error("the loan was updated outside a transaction")
		}
		l := domain.RestoreLoan(stored)
		if err := fn(l); err != nil {
			return err
		}
		stored = l.State()
		c.loanEvents = append(c.loanEvents, l.TakeEvents()...)
		return nil
	}).AnyTimes()
	c.partners.EXPECT().List(gomock.Any()).Return([]domain.Partner{{ID: c.partner, Name: "sandbox"}}, nil).AnyTimes()
	return loan, func() *domain.Loan { return domain.RestoreLoan(stored) }
}

func TestALoanActionIsAppliedOnlyWhenASecondOfficerApprovesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	viewer := console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer}
	cases := []struct {
		name     string
		cmd      console.ProposeLoanAction
		postings []domain.PostingKind
		event    domain.EventType
		check    func(t *testing.T, before domain.Position, after *domain.Loan)
	}{
		{"a penalty waiver", console.ProposeLoanAction{Kind: domain.ActionWaivePenalty, Reason: "hospitalised, letter 12"},
			nil, domain.EventLoanChanged, func(t *testing.T, before domain.Position, l *domain.Loan) {
				if p, _ := l.PositionAt(t0); p.Penalty != 0 || p.Payoff() != before.Payoff()-before.Penalty {
					t.Fatalf("after the waiver the loan owes %+v, before %+v", p, before)
				}
			}},
		{"an interest waiver", console.ProposeLoanAction{Kind: domain.ActionWaiveInterest, Terms: domain.LoanActionTerms{Amount: 1000},
			Reason: "goodwill"}, nil, domain.EventLoanChanged, func(t *testing.T, before domain.Position, l *domain.Loan) {
			if p, _ := l.PositionAt(t0); p.OverdueInterest != before.OverdueInterest-1000 {
				t.Fatalf("after the waiver the loan owes %+v, before %+v", p, before)
			}
		}},
		{"a manual repayment", console.ProposeLoanAction{Kind: domain.ActionManualRepayment, Terms: domain.LoanActionTerms{Amount: 2_000_000,
			PaymentType: domain.PaymentTerm, Channel: domain.ChannelCashDesk}, Ref: "KASSA-0001", Reason: "paid at the Chilonzor branch"},
			[]domain.PostingKind{domain.PostingRepayment}, domain.EventRepaymentStatusChanged, func(t *testing.T, before domain.Position, l *domain.Loan) {
				if p, _ := l.PositionAt(t0); p.Payoff() != before.Payoff()-2_000_000 {
					t.Fatalf("after the repayment the loan owes %+v, before %+v", p, before)
				}
			}},
		{"a longer term", console.ProposeLoanAction{Kind: domain.ActionExtendTerm, Terms: domain.LoanActionTerms{Months: 6},
			Reason: "income fell, employer's letter 5"}, nil, domain.EventLoanChanged, func(t *testing.T, before domain.Position, l *domain.Loan) {
			if p, _ := l.PositionAt(t0); p != before || l.MonthPeriod() != 18 {
				t.Fatalf("after the extension the loan owes %+v over %d months, before %+v", p, l.MonthPeriod(), before)
			}
		}},
		{"a payment holiday", console.ProposeLoanAction{Kind: domain.ActionPaymentHoliday, Terms: domain.LoanActionTerms{Months: 2},
			Reason: "flood, hokimiyat certificate 3"}, nil, domain.EventLoanChanged, func(t *testing.T, _ domain.Position, l *domain.Loan) {
			if items, _ := l.ItemsAt(t0); l.MonthPeriod() != 14 || items[4].Principal != 0 || items[5].Principal != 0 || items[6].Principal == 0 {
				t.Fatalf("after the holiday the loan runs %d months: %+v", l.MonthPeriod(), items)
			}
		}},
		{"a longer term capitalising the arrears", console.ProposeLoanAction{Kind: domain.ActionRestructureArrears,
			Terms: domain.LoanActionTerms{Months: 6}, Reason: "income fell, arrears restructured, letter 9"},
			[]domain.PostingKind{domain.PostingArrearsCapitalisation}, domain.EventLoanChanged, func(t *testing.T, before domain.Position, l *domain.Loan) {
				p, _ := l.PositionAt(t0)
				if p.Fine() != 0 || l.MonthPeriod() != 18 ||
					p.NotDuePrincipal != before.NotDuePrincipal+before.OverduePrincipal+before.OverdueInterest+before.Penalty {
					t.Fatalf("after the restructuring the loan owes %+v over %d months, before %+v", p, l.MonthPeriod(), before)
				}
			}},
		{"a write-off", console.ProposeLoanAction{Kind: domain.ActionWriteOff, Reason: "client deceased, certificate 77"},
			[]domain.PostingKind{domain.PostingWriteOff}, domain.EventLoanChanged, func(t *testing.T, _ domain.Position, l *domain.Loan) {
				if l.Status() != domain.LoanWrittenOff {
					t.Fatalf("after the write-off the loan is %s", l.Status())
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := setupConsole(t)
			c.known(maker, checker)
			uc := c.app()
			loan, current := c.overdueLoan(t)
			c.payments.EXPECT().ReceiptUsed(gomock.Any(), gomock.Any(), gomock.Any()).Return(false, nil).AnyTimes()
			before, _ := loan.PositionAt(t0)
			tc.cmd.LoanID = loan.ID()
			if _, err := uc.Actions.ProposeLoanAction.Handle(ctx, viewer, tc.cmd); !errors.Is(err, domain.ErrForbidden) {
				t.Fatalf("a viewer's proposal: %v", err)
			}
			preview, err := uc.Views.LoanAction.Handle(ctx, maker, tc.cmd)
			if err != nil || preview.Refusal != "" {
				t.Fatalf("preview: %v %s", err, preview.Refusal)
			}
			id, err := uc.Actions.ProposeLoanAction.Handle(ctx, maker, tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if got := current(); got.Repayments() != 0 {
				t.Fatal("proposing changed the loan")
			}
			if err := uc.Actions.DecideProposal.Handle(ctx, maker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrSelfApproval) {
				t.Fatalf("self-approval: %v", err)
			}
			var posted []domain.PostingKind
			c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
				if !c.inTx {
					t.Error("posted outside the approval's transaction")
				}
				posted = append(posted, p.Kind)
				return nil
			}).AnyTimes()
			if tc.cmd.Kind == domain.ActionWriteOff { // before the loan's first close: it opens the loan's books
				for _, k := range domain.BooksAccountKinds {
					c.ledger.EXPECT().OpenAccount(gomock.Any(), domain.LoanAccount(k, loan.ID())).Return(nil).Times(1)
				}
			}
			var created *domain.Repayment
			c.payments.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, r *domain.Repayment) error {
				created = r
				return nil
			}).MaxTimes(1)
			stored, err := uc.Views.LoanAction.Proposal(ctx, checker, id)
			if err != nil || !stored.Stored || stored.Before.Position != preview.Before.Position || stored.After.Position != preview.After.Position {
				t.Fatalf("the approver's preview %+v (%v) differs from the maker's %+v", stored, err, preview)
			}
			if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); err != nil {
				t.Fatal(err)
			}
			after := current()
			tc.check(t, before, after)
			if p, _ := after.PositionAt(t0); p != preview.After.Position {
				t.Fatalf("applied %+v, the preview showed %+v", p, preview.After.Position)
			}
			if len(posted) != len(tc.postings) || len(posted) > 0 && posted[0] != tc.postings[0] {
				t.Fatalf("posted %v, want %v", posted, tc.postings)
			}
			if (created != nil) != (tc.cmd.Kind == domain.ActionManualRepayment) {
				t.Fatalf("repayment created: %v", created)
			}
			events := c.loanEvents
			if created != nil {
				events = append(events, created.TakeEvents()...)
			}
			if len(events) != 1 || events[0].Type() != tc.event {
				t.Fatalf("the partner is told %+v, want one %s", events, tc.event)
			}
			if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrProposalClosed) {
				t.Fatalf("a second approval: %v", err)
			}
			if got := c.actions(); len(got) != 2 || got[0] != "alice proposal.create" || got[1] != "bob proposal.approve" {
				t.Fatalf("audit %v", got)
			}
			if e := c.audit[1]; e.Object != "loan:"+loan.ID().String() {
				t.Fatalf("audited object %q", e.Object)
			}
		})
	}
}

func TestALoanActionTheLoanRefusesIsNotProposed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	c := setupConsole(t)
	uc := c.app()
	loan, _ := c.overdueLoan(t)
	for _, cmd := range []console.ProposeLoanAction{
		{Kind: domain.ActionWaivePenalty, Terms: domain.LoanActionTerms{Amount: 1 << 40}, Reason: "more than owed"},
		{Kind: domain.ActionManualRepayment, Terms: domain.LoanActionTerms{Amount: 1 << 40, PaymentType: domain.PaymentTerm,
			Channel: domain.ChannelBankTransfer}, Ref: "PP-1", Reason: "above the payoff"},
		{Kind: domain.ActionWaivePenalty, Reason: ""},
	} {
		cmd.LoanID = loan.ID()
		if _, err := uc.Actions.ProposeLoanAction.Handle(ctx, maker, cmd); err == nil {
			t.Errorf("%+v was proposed", cmd)
		}
	}
	if len(c.audit) != 0 || len(c.props) != 0 {
		t.Fatalf("refused proposals left %d audit lines, %d proposals", len(c.audit), len(c.props))
	}
}

// A manual repayment whose receipt paid another repayment already is refused at the preview
// and at the proposal with the message its approval would give (issue 47, 10), so no dead
// proposal holds the loan's one open slot.
func TestAManualRepaymentWithAUsedReceiptIsRefusedBeforeItIsProposed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	c := setupConsole(t)
	uc := c.app()
	loan, _ := c.overdueLoan(t)
	c.payments.EXPECT().ReceiptUsed(gomock.Any(), domain.ChannelCashDesk, "KASSA-17").Return(true, nil).AnyTimes()
	cmd := console.ProposeLoanAction{Kind: domain.ActionManualRepayment, LoanID: loan.ID(), Terms: domain.LoanActionTerms{
		Amount: 2_000_000, PaymentType: domain.PaymentTerm, Channel: domain.ChannelCashDesk}, Ref: " KASSA-17 ", Reason: "paid at the desk"}
	preview, err := uc.Views.LoanAction.Handle(ctx, maker, cmd)
	if err != nil || preview.Refusal != domain.ErrDebitUsed.Error() {
		t.Fatalf("preview: %v, refusal %q, want %q", err, preview.Refusal, domain.ErrDebitUsed)
	}
	if _, err := uc.Actions.ProposeLoanAction.Handle(ctx, maker, cmd); !errors.Is(err, domain.ErrDebitUsed) || err.Error() != domain.ErrDebitUsed.Error() {
		t.Fatalf("proposal: %v, want %v", err, domain.ErrDebitUsed)
	}
	if len(c.audit) != 0 || len(c.props) != 0 {
		t.Fatalf("a refused proposal left %d audit lines, %d proposals", len(c.audit), len(c.props))
	}
}

// An approved write-off posts on the accrual basis whether or not a close has run for the loan:
// one written off before its first close opens its books at the write-off, with the books
// accounts the close would have opened, before its posting; one whose books are kept opens none.
func TestAnApprovedWriteOffKeepsTheBooksBeforeTheFirstClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	today := domain.BusinessDate(t0)
	cases := []struct {
		name   string
		issued time.Time
		closed bool // its books closed through yesterday
		memo   bool // charges owed go to the non-accrual memo
	}{
		{name: "written off on its issue day, before any close", issued: t0.Add(-time.Hour)},
		{name: "overdue, before the books ever closed", issued: t0.AddDate(0, -4, 0), memo: true},
		{name: "its books kept", issued: t0.AddDate(0, -4, 0), closed: true, memo: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := setupConsole(t)
			c.known(maker, checker)
			uc := c.app()
			loan := c.loanIssued(tc.issued)
			if tc.closed {
				if _, err := loan.CloseBooks(domain.BusinessDate(tc.issued), today.AddDate(0, 0, -1), domain.DefaultBooksRules()); err != nil {
					t.Fatal(err)
				}
			}
			loan, current := c.storedLoan(t, loan)
			opened := map[domain.Account]bool{}
			c.ledger.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, a domain.Account) error {
				if !c.inTx || opened[a] {
					t.Errorf("%s opened again or outside the approval's transaction", a.Key())
				}
				opened[a] = true
				return nil
			}).AnyTimes()
			var posted []domain.Posting
			c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
				for _, e := range p.Entries {
					if e.Account.LoanID != uuid.Nil && e.Account.Kind != domain.AccountLoan && !opened[e.Account] && !tc.closed {
						t.Errorf("posted to %s, not opened", e.Account.Key())
					}
				}
				posted = append(posted, p)
				return nil
			}).AnyTimes()
			cmd := console.ProposeLoanAction{Kind: domain.ActionWriteOff, LoanID: loan.ID(), Reason: "fraud, police report 12"}
			id, err := uc.Actions.ProposeLoanAction.Handle(ctx, maker, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); err != nil {
				t.Fatal(err)
			}
			if len(posted) != 1 || posted[0].Kind != domain.PostingWriteOff {
				t.Fatalf("posted %+v, want one write-off", posted)
			}
			moved := map[domain.AccountKind]int64{}
			for _, e := range posted[0].Entries {
				moved[e.Account.Kind] += e.Debit - e.Credit
			}
			principal := -moved[domain.AccountLoan] - moved[domain.AccountOverduePrincipal]
			expense := moved[domain.AccountWriteOffExpense] + moved[domain.AccountProvision]
			if principal <= 0 || expense != principal || moved[domain.AccountMemoWrittenOff] != principal || moved[domain.AccountWrittenOff] != 0 ||
				(moved[domain.AccountMemoNonAccruedInterest] > 0 || moved[domain.AccountMemoNonAccruedPenalty] > 0) != tc.memo {
				t.Fatalf("the write-off posted %v", moved)
			}
			if n := len(opened); tc.closed && n != 0 || !tc.closed && n != len(domain.BooksAccountKinds) {
				t.Fatalf("%d accounts opened: %v", n, opened)
			}
			after := current()
			if st, open := after.Books(); !open || !st.NonAccrual || st.MemoWrittenOff != principal || after.Status() != domain.LoanWrittenOff ||
				!st.Day.Equal(today.AddDate(0, 0, -1)) {
				t.Fatalf("the loan stored %s with books (open %t) %+v", after.Status(), open, st)
			}
		})
	}
}
