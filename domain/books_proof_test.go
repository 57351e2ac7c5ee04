package domain_test

import (
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// TestTheSubledgerIsProvedAgainstItsControlAccounts: every per-loan kind is compared (one the
// figures do not list stands at zero on both sides), a bank-wide kind is not, and each kind
// apart is one break with both balances in its normal sign.
func TestTheSubledgerIsProvedAgainstItsControlAccounts(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 3, 1, 19, 0, 0, 0, time.UTC)
	perLoan := 0
	for _, k := range domain.AccountKinds() {
		if k.PerLoan() {
			perLoan++
		}
	}
	if perLoan != 17 {
		t.Fatalf("%d per-loan kinds, want the 17 of docs/accounting.md", perLoan)
	}
	agree := []domain.SubledgerBalance{{Kind: domain.AccountLoan, Loans: 900, Control: 900},
		{Kind: domain.AccountDemand, Loans: -100, Control: -100},
		// A bank-wide kind has no sum over loans: not compared.
		{Kind: domain.AccountInterestIncome, Loans: 0, Control: -7671}}
	if matched, breaks := domain.ProveSubledger(agree, end); matched != perLoan || len(breaks) != 0 {
		t.Fatalf("agreeing figures: %d matched, breaks %+v", matched, breaks)
	}
	apart := append(agree, domain.SubledgerBalance{Kind: domain.AccountInterestReceivable, Loans: 7678, Control: 7671},
		domain.SubledgerBalance{Kind: domain.AccountProvision, Loans: -100077, Control: -100070})
	matched, breaks := domain.ProveSubledger(apart, end)
	if matched != perLoan-2 || len(breaks) != 2 {
		t.Fatalf("%d matched, breaks %+v", matched, breaks)
	}
	want := []struct {
		id           string
		ours, theirs int64
	}{{"INTEREST_RECEIVABLE", 7678, 7671}, {"PROVISION", 100077, 100070}} // PROVISION is credit-normal
	for i, w := range want {
		b := breaks[i]
		if b.Kind != domain.BreakSubledgerDiffers || b.LineID != w.id || b.Ours.Kind != domain.LineControl ||
			b.Ours.Amount != w.ours || b.Theirs.Amount != w.theirs || !b.Ours.At.Equal(end) || b.Acceptable() || b.MoneyAgrees() {
			t.Errorf("break %d: %+v %+v %+v, want %+v", i, b, b.Ours, b.Theirs, w)
		}
	}
}

// TestEachPostIsProvedAgainstCoreBankingsAcknowledgement: a post whose totals core banking
// acknowledged as posted is matched; each side acknowledged otherwise is one break.
func TestEachPostIsProvedAgainstCoreBankingsAcknowledgement(t *testing.T) {
	t.Parallel()
	end := time.Date(2027, 3, 1, 19, 0, 0, 0, time.UTC)
	posts := []domain.GLPostProof{
		{Key: "2027-03-01:10", Posted: domain.Turnover{Debits: 5, Credits: 5}, Acknowledged: domain.Turnover{Debits: 5, Credits: 6}},
		{Key: "2027-03-01:1", Posted: domain.Turnover{Debits: 387398, Credits: 387398}, Acknowledged: domain.Turnover{Debits: 387398, Credits: 387398}},
		{Key: "2027-03-01:2", Posted: domain.Turnover{Debits: 500, Credits: 500}, Acknowledged: domain.Turnover{Debits: 400, Credits: 400}},
	}
	matched, breaks := domain.ProveGLAcknowledgements(posts, end)
	if matched != 1 || len(breaks) != 3 {
		t.Fatalf("%d matched, breaks %+v", matched, breaks)
	}
	want := []struct {
		id           string
		ours, theirs int64
	}{{"2027-03-01:2:DEBITS", 500, 400}, {"2027-03-01:2:CREDITS", 500, 400}, {"2027-03-01:10:CREDITS", 5, 6}}
	for i, w := range want {
		b := breaks[i]
		if b.Kind != domain.BreakGLAckDiffers || b.LineID != w.id || b.Ours.Kind != domain.LineGLPost || b.Ours.Amount != w.ours ||
			b.Theirs.Amount != w.theirs || !b.Theirs.At.Equal(end) || b.Acceptable() {
			t.Errorf("break %d: %+v %+v %+v, want %+v", i, b, b.Ours, b.Theirs, w)
		}
	}
	if matched, breaks := domain.ProveGLAcknowledgements(posts[1:2], end); matched != 1 || len(breaks) != 0 {
		t.Fatalf("an acknowledgement as posted: %d matched, breaks %+v", matched, breaks)
	}
}
