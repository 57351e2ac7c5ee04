package domain

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Accepting the network's side of a break (docs/reconciliation.md, "Accepting the network's
// side"): tiyin's books are made to say what the network says happened, by one adjusting
// posting. What the client was promised is never taken back silently: money the network moved
// that tiyin did not mean to (a duplicate, a credit tiyin never ordered, a debit it never
// asked for) goes to the bank's reconciliation account, a claim or a debt the bank works out
// with the client; money that never reached the card goes back to the client's demand account.

// AccountReconciliation is the bank-wide account of reconciliation's adjustments: what the
// networks moved beyond tiyin's orders (debit: the bank's claim) or owe back (credit).
var AccountReconciliation = AccountKind{"RECONCILIATION_ADJUSTMENTS"}

// The postings of an accepted break.
var (
	// PostingTransferReversal moves a credit the network never made back from card settlement
	// to the demand account; its Ref is the transfer.
	PostingTransferReversal = PostingKind{"TRANSFER_REVERSAL"}
	// PostingReconciliationAdjustment books what the network moved beyond tiyin's records;
	// its Ref is the break.
	PostingReconciliationAdjustment = PostingKind{"RECONCILIATION_ADJUSTMENT"}
)

// AcceptNetworkSide is the adjustment that makes tiyin's books say what the network's statement
// says. t is the transfer a credit line names (nil for any other line); it is reversed when
// the network never credited the card (its posting is then a PostingTransferReversal, and the
// transfer records the partner's event). A break the network's side cannot settle is refused
// (ErrWrongState): a balance follows from movements, and an outcome tiyin does not know is
// settled by the run itself.
func AcceptNetworkSide(postingID, breakID uuid.UUID, b Break, t *Transfer, now time.Time) (Posting, error) {
	refuse := func(why string) (Posting, error) {
		return Posting{}, fmt.Errorf("%w: %s", ErrWrongState, why)
	}
	if b.Kind == BreakBalanceDiffers {
		return refuse("a balance follows from the day's movements: accept their breaks, then explain this one")
	}
	if b.BooksBreak() {
		return Posting{}, errBooksBreakNotAccepted
	}
	ours, theirs := lineAmount(b.Ours), lineAmount(b.Theirs)
	kind := lineKind(b)
	if kind != LineCredit && kind != LineDebit {
		return refuse("only a credit's or a debit's break can be accepted")
	}
	if b.Ours != nil && b.Ours.Status == LineUnknown {
		return refuse("tiyin does not know this credit's outcome yet: it is settled when the network answers or by a resolution")
	}
	if b.Kind == BreakDuplicate {
		ours = 0 // the first of the network's lines matched; the break is its second
	}
	if kind == LineCredit && ours > 0 && theirs == 0 {
		return reverseCredit(postingID, b, t, now)
	}
	adjust := func(amount int64, debit, credit Account) (Posting, error) {
		return Move(postingID, PostingReconciliationAdjustment, breakID, now, amount, debit, credit)
	}
	suspense, settlement := BankAccount(AccountReconciliation), BankAccount(AccountCardSettlement)
	switch d := theirs - ours; {
	case d == 0:
		return refuse("both sides moved the same amount: nothing to adjust")
	case kind == LineCredit && d > 0:
		// The card got more than tiyin sent: the bank's claim on the client.
		return adjust(d, suspense, settlement)
	case kind == LineCredit:
		// The card got less than tiyin sent: the rest goes back to the client's account.
		if t == nil {
			return refuse("no transfer of tiyin's names this credit")
		}
		return adjust(-d, settlement, LoanAccount(AccountDemand, t.LoanID()))
	case d > 0:
		// The card paid more than tiyin booked: owed back to the client.
		return adjust(d, BankAccount(AccountRepaymentClearing), suspense)
	default:
		// The card paid less than tiyin booked (or nothing: reversed, missing): the bank's claim.
		return adjust(-d, suspense, BankAccount(AccountRepaymentClearing))
	}
}

// reverseCredit turns a transfer the network never credited FAILED and moves its amount back
// from card settlement to the client's demand account.
func reverseCredit(postingID uuid.UUID, b Break, t *Transfer, now time.Time) (Posting, error) {
	if t == nil || t.Status() != TransferSuccess {
		return Posting{}, fmt.Errorf("%w: only a credit tiyin took as made can be reversed", ErrWrongState)
	}
	if err := t.Reverse("the card network never credited the card, as its statement shows; the amount is back on the account", now); err != nil {
		return Posting{}, err
	}
	return Move(postingID, PostingTransferReversal, t.ID(), now, b.Ours.Amount,
		BankAccount(AccountCardSettlement), LoanAccount(AccountDemand, t.LoanID()))
}

// lineAmount is what a side moved: nothing when it lists no line, or one that did not end done.
func lineAmount(l *StatementLine) int64 {
	if l == nil || l.Status != LineDone {
		return 0
	}
	return l.Amount
}

func lineKind(b Break) LineKind {
	if b.Ours != nil {
		return b.Ours.Kind
	}
	if b.Theirs != nil {
		return b.Theirs.Kind
	}
	return ""
}
