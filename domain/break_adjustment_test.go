package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// Each break the network's side settles books one posting, between the accounts its kind
// names, for the difference; the rest are refused.
func TestAcceptingTheNetworksSideBooksTheDifference(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 3, 2, 10, 0, 0, 0, domain.Tashkent)
	loan := uuid.New()
	line := func(kind domain.LineKind, amount int64, status domain.LineStatus) *domain.StatementLine {
		return &domain.StatementLine{ID: "x", Kind: kind, Amount: amount, At: now, Status: status}
	}
	credit := func(amount int64, status domain.LineStatus) *domain.StatementLine {
		return line(domain.LineCredit, amount, status)
	}
	debit := func(amount int64, status domain.LineStatus) *domain.StatementLine {
		return line(domain.LineDebit, amount, status)
	}
	demand, settlement := domain.LoanAccount(domain.AccountDemand, loan).Key(), domain.BankAccount(domain.AccountCardSettlement).Key()
	suspense, clearing := domain.BankAccount(domain.AccountReconciliation).Key(), domain.BankAccount(domain.AccountRepaymentClearing).Key()
	cases := []struct {
		name          string
		b             domain.Break
		success       bool // the transfer is SUCCESS (else PROCESSING)
		debit, credit string
		amount        int64
		reversed      bool
	}{
		{"a credit the network lost goes back to the account", domain.Break{Kind: domain.BreakMissingAtNetwork, Ours: credit(500_000, domain.LineDone)},
			true, settlement, demand, 500_000, true},
		{"a credit the network refused goes back to the account",
			domain.Break{Kind: domain.BreakStatusDiffers, Ours: credit(500_000, domain.LineDone), Theirs: credit(500_000, domain.LineFailed)},
			true, settlement, demand, 500_000, true},
		{"a credit made twice is the bank's claim", domain.Break{Kind: domain.BreakDuplicate, Ours: credit(500_000, domain.LineDone),
			Theirs: credit(500_000, domain.LineDone)}, true, suspense, settlement, 500_000, false},
		{"a credit one tiyin short: the tiyin back to the account", domain.Break{Kind: domain.BreakAmountDiffers,
			Ours: credit(500_000, domain.LineDone), Theirs: credit(499_999, domain.LineDone)}, true, settlement, demand, 1, false},
		{"a credit one tiyin over: the bank's claim", domain.Break{Kind: domain.BreakAmountDiffers,
			Ours: credit(500_000, domain.LineDone), Theirs: credit(500_001, domain.LineDone)}, true, suspense, settlement, 1, false},
		{"a credit tiyin never ordered: the bank's claim", domain.Break{Kind: domain.BreakMissingInTiyin, Theirs: credit(7_000, domain.LineDone)},
			false, suspense, settlement, 7_000, false},
		{"a credit tiyin failed and the network made", domain.Break{Kind: domain.BreakStatusDiffers, Ours: credit(7_000, domain.LineFailed),
			Theirs: credit(7_000, domain.LineDone)}, false, suspense, settlement, 7_000, false},
		{"a debit the network reversed: the bank's claim", domain.Break{Kind: domain.BreakStatusDiffers, Ours: debit(70_000, domain.LineDone),
			Theirs: debit(70_000, domain.LineReversed)}, false, suspense, clearing, 70_000, false},
		{"a debit the network lost: the bank's claim", domain.Break{Kind: domain.BreakMissingAtNetwork, Ours: debit(70_000, domain.LineDone)},
			false, suspense, clearing, 70_000, false},
		{"a debit made twice: owed back to the client", domain.Break{Kind: domain.BreakDuplicate, Ours: debit(70_000, domain.LineDone),
			Theirs: debit(70_000, domain.LineDone)}, false, clearing, suspense, 70_000, false},
		{"a debit tiyin never asked for: owed back to the client", domain.Break{Kind: domain.BreakMissingInTiyin, Theirs: debit(70_000, domain.LineDone)},
			false, clearing, suspense, 70_000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := transferFor(t, loan, c.success)
			got, err := domain.AcceptNetworkSide(uuid.New(), uuid.New(), c.b, tr, now)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			e := got.Entries
			if len(e) != 2 || e[0].Account.Key() != c.debit || e[0].Debit != c.amount || e[1].Account.Key() != c.credit || e[1].Credit != c.amount {
				t.Fatalf("posting %+v, want %d from %s to %s", e, c.amount, c.debit, c.credit)
			}
			if reversed := got.Kind == domain.PostingTransferReversal; reversed != c.reversed || (tr.Status() == domain.TransferFailed) != c.reversed {
				t.Fatalf("posting %s, transfer %s, want reversed %v", got.Kind, tr.Status(), c.reversed)
			}
			if c.reversed && len(tr.TakeEvents()) == 0 {
				t.Fatal("a reversed transfer tells its partner nothing")
			}
		})
	}
}

func TestBreaksTheNetworksSideCannotSettleAreRefused(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 3, 2, 10, 0, 0, 0, domain.Tashkent)
	credit := func(amount int64, status domain.LineStatus) *domain.StatementLine {
		return &domain.StatementLine{ID: "x", Kind: domain.LineCredit, Amount: amount, At: now, Status: status}
	}
	for name, b := range map[string]domain.Break{
		"a balance": {Kind: domain.BreakBalanceDiffers, Ours: &domain.StatementLine{Kind: domain.LineDemand, Amount: 1},
			Theirs: &domain.StatementLine{Kind: domain.LineDemand, Amount: 2}},
		"an outcome tiyin does not know":              {Kind: domain.BreakStatusDiffers, Ours: credit(5, domain.LineUnknown), Theirs: credit(5, domain.LineDone)},
		"failed on both sides, amounts apart":         {Kind: domain.BreakAmountDiffers, Ours: credit(5, domain.LineFailed), Theirs: credit(4, domain.LineFailed)},
		"a lost credit whose transfer is not SUCCESS": {Kind: domain.BreakMissingAtNetwork, Ours: credit(5, domain.LineDone)},
		"a sub-ledger apart from its control account": {Kind: domain.BreakSubledgerDiffers, LineID: "INTEREST_RECEIVABLE",
			Ours: &domain.StatementLine{Kind: domain.LineControl, Amount: 7}, Theirs: &domain.StatementLine{Kind: domain.LineControl, Amount: 0}},
		"a post acknowledged otherwise": {Kind: domain.BreakGLAckDiffers, LineID: "2027-03-01:1:DEBITS",
			Ours: &domain.StatementLine{Kind: domain.LineGLPost, Amount: 7}, Theirs: &domain.StatementLine{Kind: domain.LineGLPost, Amount: 8}},
	} {
		if _, err := domain.AcceptNetworkSide(uuid.New(), uuid.New(), b, transferFor(t, uuid.New(), false), now); !errors.Is(err, domain.ErrWrongState) {
			t.Errorf("%s: %v, want ErrWrongState", name, err)
		}
	}
}

func TestClosingBalancesAreComparedOnTheKindsCoreBankingKeeps(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 3, 1, 19, 0, 0, 0, time.UTC)
	ours := []domain.AccountBalance{{Account: "A", Kind: domain.LineDemand, Balance: 0}, {Account: "B", Kind: domain.LineDemand, Balance: 10},
		{Account: "C", Kind: domain.LineDemand, Balance: 5}, {Account: "A", Kind: domain.LineLoan, Balance: 900}}
	theirs := []domain.AccountBalance{{Account: "A", Kind: domain.LineDemand, Balance: 0}, {Account: "B", Kind: domain.LineDemand, Balance: 11},
		{Account: "D", Kind: domain.LineDemand, Balance: 3}}
	matched, breaks := domain.ReconcileBalances(ours, theirs, end)
	if matched != 1 || len(breaks) != 3 {
		t.Fatalf("matched %d, breaks %+v", matched, breaks)
	}
	want := []struct {
		id           string
		ours, theirs int64
	}{{"B:DEMAND", 10, 11}, {"C:DEMAND", 5, 0}, {"D:DEMAND", 0, 3}}
	for i, w := range want {
		b := breaks[i]
		if b.Kind != domain.BreakBalanceDiffers || b.LineID != w.id || b.Ours.Amount != w.ours || b.Theirs.Amount != w.theirs || !b.Ours.At.Equal(end) {
			t.Errorf("break %d: %+v %+v %+v, want %+v", i, b, b.Ours, b.Theirs, w)
		}
	}
	// Core banking that lists loan balances has them compared.
	_, breaks = domain.ReconcileBalances(ours, append(theirs, domain.AccountBalance{Account: "A", Kind: domain.LineLoan, Balance: 800}), end)
	if len(breaks) != 4 || breaks[0].LineID != "A:LOAN" || breaks[0].Ours.Amount != 900 || breaks[0].Theirs.Amount != 800 {
		t.Fatalf("with loan balances: %+v", breaks)
	}
}

// transferFor is a transfer of the loan, SUCCESS or PROCESSING.
func transferFor(t *testing.T, loan uuid.UUID, success bool) *domain.Transfer {
	t.Helper()
	now := time.Date(2027, 3, 1, 10, 0, 0, 0, domain.Tashkent)
	tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: uuid.New(), LoanID: loan, Network: domain.NetworkUzcard,
		Amount: domain.Amount(500_000), Now: now})
	if err := tr.StartProcessing(now); err != nil {
		t.Fatal(err)
	}
	if success {
		if err := tr.Settle(true, "", now); err != nil {
			t.Fatal(err)
		}
	}
	tr.TakeEvents()
	return tr
}
