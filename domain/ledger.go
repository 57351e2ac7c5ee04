package domain

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ErrInsufficientFunds means a posting would take the demand account below zero.
var ErrInsufficientFunds = refusal("insufficient-funds", "insufficient funds on the demand account")

// AccountKind is the role of a ledger account.
type AccountKind struct{ s string }

// Ledger account kinds. Per loan: the loan (what the client owes, debit-normal), the client's
// demand account and the holds on it (both credit-normal, never below zero). Bank-wide: card
// settlement (money sent to the networks), repayment clearing (money received from card
// debits) and the income accounts.
var (
	AccountLoan              = AccountKind{"LOAN"}
	AccountDemand            = AccountKind{"DEMAND"}
	AccountHold              = AccountKind{"HOLD"}
	AccountCardSettlement    = AccountKind{"CARD_SETTLEMENT"}
	AccountRepaymentClearing = AccountKind{"REPAYMENT_CLEARING"}
	AccountInterestIncome    = AccountKind{"INTEREST_INCOME"}
	AccountServiceIncome     = AccountKind{"SERVICE_INCOME"}
	AccountPenaltyIncome     = AccountKind{"PENALTY_INCOME"}
	// AccountWrittenOff (per loan) holds the principal of a written-off loan not yet recovered.
	AccountWrittenOff = AccountKind{"WRITTEN_OFF"}
	// AccountCashDesk and AccountBankTransfers receive the repayments operators post by hand.
	AccountCashDesk      = AccountKind{"CASH_DESK"}
	AccountBankTransfers = AccountKind{"BANK_TRANSFERS"}
)

// ParseAccountKind reads a stored kind.
func ParseAccountKind(s string) (AccountKind, error) {
	return parseEnum(s, AccountKinds())
}

// String returns the name.
func (k AccountKind) String() string { return k.s }

// Floored reports whether the account may never be debited beyond its credits.
func (k AccountKind) Floored() bool { return k == AccountDemand || k == AccountHold }

// Account identifies a ledger account: a kind, and the loan for per-loan kinds.
type Account struct {
	Kind   AccountKind
	LoanID uuid.UUID
}

// LoanAccount returns the per-loan account of the kind.
func LoanAccount(k AccountKind, loanID uuid.UUID) Account { return Account{Kind: k, LoanID: loanID} }

// BankAccount returns the bank-wide account of the kind.
func BankAccount(k AccountKind) Account { return Account{Kind: k} }

// Key is the account's stable identifier: "DEMAND:<loan id>" or "CARD_SETTLEMENT".
func (a Account) Key() string {
	if a.LoanID == uuid.Nil {
		return a.Kind.s
	}
	return a.Kind.s + ":" + a.LoanID.String()
}

// Entry is one side of a posting: a debit or a credit of a positive amount.
type Entry struct {
	Account Account
	Debit   int64
	Credit  int64
}

// PostingKind names why money moved.
type PostingKind struct{ s string }

// The kinds of postings.
var (
	PostingIssuance        = PostingKind{"ISSUANCE"}
	PostingTransferHold    = PostingKind{"TRANSFER_HOLD"}
	PostingTransferCapture = PostingKind{"TRANSFER_CAPTURE"}
	PostingTransferRelease = PostingKind{"TRANSFER_RELEASE"}
	PostingRepayment       = PostingKind{"REPAYMENT"}
	PostingWriteOff        = PostingKind{"WRITE_OFF"}
)

// String returns the name.
func (k PostingKind) String() string { return k.s }

// Posting is one balanced movement of money: its debits equal its credits.
type Posting struct {
	ID      uuid.UUID
	Kind    PostingKind
	Ref     uuid.UUID // the aggregate that caused it
	At      time.Time
	Entries []Entry
}

// NewPosting checks that the entries are positive, one-sided and balanced.
func NewPosting(id uuid.UUID, kind PostingKind, ref uuid.UUID, at time.Time, entries ...Entry) (Posting, error) {
	var debits, credits int64
	for _, e := range entries {
		if e.Debit < 0 || e.Credit < 0 || (e.Debit == 0) == (e.Credit == 0) {
			return Posting{}, fmt.Errorf("posting %s: entry %s must be a positive debit or credit", kind, e.Account.Key())
		}
		debits += e.Debit
		credits += e.Credit
	}
	if len(entries) < 2 || debits != credits {
		return Posting{}, fmt.Errorf("posting %s: debits %d ≠ credits %d", kind, debits, credits)
	}
	return Posting{ID: id, Kind: kind, Ref: ref, At: at, Entries: entries}, nil
}

// Move is a posting of amount from one account (debited) to another (credited).
func Move(id uuid.UUID, kind PostingKind, ref uuid.UUID, at time.Time, amount int64, debit, credit Account) (Posting, error) {
	return NewPosting(id, kind, ref, at, Entry{Account: debit, Debit: amount}, Entry{Account: credit, Credit: amount})
}
