package domain

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Repayment errors.
var (
	// ErrRepaymentNotFound means no repayment request of the partner has that id (or the
	// externalId given does not match its pay).
	ErrRepaymentNotFound = refusal("repayment-not-found", "repayment request not found")
	// ErrRepaymentExpired means the request can no longer be paid: older than its life, paid
	// already, or the loan changed since check.
	ErrRepaymentExpired = refusal("repayment-expired", "repayment request expired")
	// ErrDebitRejected means the card debit named by debitId cannot pay the request.
	ErrDebitRejected = refusal("debit-rejected", "debit rejected")
	// ErrDebitUsed means the debit, or a manual repayment's receipt or transfer reference, paid
	// another repayment already; it matches ErrDebitRejected.
	ErrDebitUsed = fmt.Errorf("%w: the debit, or the receipt's or transfer's reference, paid another repayment already", ErrDebitRejected)
	// ErrLoanClosed means the loan is paid off; it matches ErrLoanNotIssued (code 1013).
	ErrLoanClosed = fmt.Errorf("%w: the loan is paid off", ErrLoanNotIssued)
)

// RepaymentTTL is how long a repayment request lives; it never lives past midnight in Tashkent.
const RepaymentTTL = 30 * time.Minute

// RepaymentStatus is where a repayment request is.
type RepaymentStatus struct{ s string }

// The repayment request statuses (DESIGN.md §8.4). A request is NEW until paid; SUCCESS once
// its payment is posted; EXPIRED when its life ended unpaid; FAILED when the loan changed since
// check (another payment was posted, or the loan closed), so it can never be paid. PROCESSING
// is for gateways that confirm a debit later; the sandbox confirms at once.
var (
	RepaymentNew        = RepaymentStatus{"NEW"}
	RepaymentProcessing = RepaymentStatus{"PROCESSING"}
	RepaymentSuccess    = RepaymentStatus{"SUCCESS"}
	RepaymentFailed     = RepaymentStatus{"FAILED"}
	RepaymentExpired    = RepaymentStatus{"EXPIRED"}
)

// ParseRepaymentStatus reads a stored status.
func ParseRepaymentStatus(s string) (RepaymentStatus, error) {
	return parseEnum(s, []RepaymentStatus{RepaymentNew, RepaymentProcessing, RepaymentSuccess, RepaymentFailed, RepaymentExpired})
}

// String returns the name.
func (s RepaymentStatus) String() string { return s.s }

// MarshalText writes the name, so a stored outcome keeps the status.
func (s RepaymentStatus) MarshalText() ([]byte, error) { return []byte(s.s), nil }

// UnmarshalText reads a name MarshalText wrote.
func (s *RepaymentStatus) UnmarshalText(b []byte) error {
	st, err := ParseRepaymentStatus(string(b))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// Debit is a card debit as the processing network reports it.
type Debit struct {
	ID        string
	Network   Network
	Amount    int64
	Succeeded bool
}

// Payment is a posted repayment: what was paid, with which debit, and how it was applied.
type Payment struct {
	Type   PaymentType
	Amount int64
	// Channel is how the money came: a card debit (the partner's pay), or the cash desk or a
	// bank transfer that operators post by hand. DebitID is the card debit's id, or the
	// receipt's or transfer's reference; Network is the card's (zero for the other channels).
	Channel       Channel
	DebitID       string
	Network       Network
	ExternalID    uuid.UUID // the pay request's envelope id
	TransactionID uuid.UUID // the ledger posting
	At            time.Time
	Principal     int64
	Interest      int64 // interest and service
	Penalty       int64
	// Recovery marks a payment on a written-off loan: its principal comes back from the
	// written-off account.
	Recovery bool
}

// Channel is how a repayment's money came.
type Channel struct{ s string }

// The repayment channels.
var (
	ChannelCard         = Channel{"CARD"}
	ChannelCashDesk     = Channel{"CASH_DESK"}
	ChannelBankTransfer = Channel{"BANK_TRANSFER"}
)

// ParseChannel reads a channel's name.
func ParseChannel(s string) (Channel, error) {
	return parseEnum(s, []Channel{ChannelCard, ChannelCashDesk, ChannelBankTransfer})
}

// String returns the name.
func (c Channel) String() string { return c.s }

// account is the bank's account the channel's money arrives on.
func (c Channel) account() Account {
	switch c {
	case ChannelCashDesk:
		return BankAccount(AccountCashDesk)
	case ChannelBankTransfer:
		return BankAccount(AccountBankTransfers)
	}
	return BankAccount(AccountRepaymentClearing)
}

// Repayment is a repayment request: a snapshot of the debt made by check, paid at most once.
type Repayment struct {
	id, partnerID, loanID uuid.UUID
	contractNumber        string
	// loanVersion is the loan's repayment count at check; a different count means the loan
	// changed since.
	loanVersion         int
	quote               Position
	accountBalance      int64
	checkedAt, expireAt time.Time
	payment             *Payment
	events
}

// NewRepayment snapshots the loan's debt at now (check, endpoint 12).
func NewRepayment(id uuid.UUID, loan *Loan, accountBalance int64, now time.Time) (*Repayment, error) {
	if loan.Closed() {
		return nil, ErrLoanClosed
	}
	pos, err := loan.PositionAt(now)
	if err != nil {
		return nil, err
	}
	expire := now.Add(RepaymentTTL)
	if midnight := BusinessDate(now).AddDate(0, 0, 1).Add(-5 * time.Hour); midnight.Before(expire) {
		expire = midnight // 00:00 in Tashkent, as UTC
	}
	return &Repayment{id: id, partnerID: loan.partnerID, loanID: loan.id, contractNumber: loan.contractNumber,
		loanVersion: loan.repayments, quote: pos, accountBalance: accountBalance, checkedAt: now, expireAt: expire}, nil
}

// RepaymentState is every stored field of a repayment request, for repositories only.
type RepaymentState struct {
	ID, PartnerID, LoanID uuid.UUID
	ContractNumber        string
	LoanVersion           int
	Quote                 Position
	AccountBalance        int64
	CheckedAt, ExpireAt   time.Time
	Payment               *Payment
}

// RestoreRepayment rebuilds a request from storage. Only repositories may call it.
func RestoreRepayment(s RepaymentState) *Repayment {
	return &Repayment{id: s.ID, partnerID: s.PartnerID, loanID: s.LoanID, contractNumber: s.ContractNumber,
		loanVersion: s.LoanVersion, quote: s.Quote, accountBalance: s.AccountBalance, checkedAt: s.CheckedAt,
		expireAt: s.ExpireAt, payment: s.Payment}
}

// State returns every field, for repositories to store.
func (r *Repayment) State() RepaymentState {
	return RepaymentState{ID: r.id, PartnerID: r.partnerID, LoanID: r.loanID, ContractNumber: r.contractNumber,
		LoanVersion: r.loanVersion, Quote: r.quote, AccountBalance: r.accountBalance, CheckedAt: r.checkedAt,
		ExpireAt: r.expireAt, Payment: r.payment}
}

// StatusAt returns the request's status at now, given the loan's current repayment count, and
// a description of it.
func (r *Repayment) StatusAt(now time.Time, loanVersion int) (RepaymentStatus, string) {
	switch {
	case r.payment != nil:
		return RepaymentSuccess, "payment posted"
	case loanVersion != r.loanVersion:
		return RepaymentFailed, "the loan changed since check: another payment was posted; check again"
	case !now.Before(r.expireAt):
		return RepaymentExpired, "the request expired unpaid; check again"
	}
	return RepaymentNew, "checked, waiting for pay"
}

// Payable checks that the request can be paid with amount at now on the loan as it stands:
// the loan is open and unchanged since check, the request unpaid and alive, the amount within
// the quote.
func (r *Repayment) Payable(loan *Loan, now time.Time, amount int64) error {
	if loan.Closed() {
		return ErrLoanClosed
	}
	if status, msg := r.StatusAt(now, loan.repayments); status != RepaymentNew {
		if status == RepaymentSuccess {
			msg = "the request was paid already; check again"
		}
		return fmt.Errorf("%w: %s", ErrRepaymentExpired, msg)
	}
	if amount <= 0 || amount > r.quote.Payoff() {
		return fmt.Errorf("%w: maxAmount is %d", ErrRepaymentAmount, r.quote.Payoff())
	}
	return nil
}

// VerifyDebit checks that the network's debit is a successful debit of exactly amount on network.
func VerifyDebit(d Debit, amount int64, network Network) error {
	switch {
	case !d.Succeeded:
		return fmt.Errorf("%w: debit %s did not succeed", ErrDebitRejected, d.ID)
	case d.Network != network:
		return fmt.Errorf("%w: debit %s is on %s, not %s", ErrDebitRejected, d.ID, d.Network, network)
	case d.Amount != amount:
		return fmt.Errorf("%w: debit %s is of %d tiyin, not %d", ErrDebitRejected, d.ID, d.Amount, amount)
	}
	return nil
}

// Pay applies the payment to the loan in the legal order and records it on the request; it
// returns the balanced posting that moves the money: the cleared card debit to the loan's
// principal and the income accounts. The caller checked Payable and the debit.
func (r *Repayment) Pay(loan *Loan, p Payment) (Posting, error) {
	if err := r.Payable(loan, p.At, p.Amount); err != nil {
		return Posting{}, err
	}
	if loan.id != r.loanID {
		return Posting{}, ErrRepaymentNotFound
	}
	b, err := loan.repaymentBook()
	if err != nil {
		return Posting{}, err
	}
	paid := b.chargesPaid()
	split, err := loan.repay(p.At, p.Type, p.Amount)
	if err != nil {
		return Posting{}, err
	}
	p.Principal, p.Interest, p.Penalty = split.Principal, split.Interest, split.Penalty
	if p.Channel == (Channel{}) {
		p.Channel = ChannelCard
	}
	principal := LoanAccount(AccountLoan, loan.id)
	if p.Recovery = !loan.writtenOffAt.IsZero(); p.Recovery {
		principal = LoanAccount(AccountWrittenOff, loan.id)
	}
	entries := []Entry{{Account: p.Channel.account(), Debit: p.Amount}}
	// Interest paid ahead that a payment applied to principal is income given back: a debit.
	for _, e := range []struct {
		account Account
		amount  int64
	}{
		{principal, p.Principal},
		{BankAccount(AccountInterestIncome), split.InterestIncome},
		{BankAccount(AccountServiceIncome), split.ServiceIncome},
		{BankAccount(AccountPenaltyIncome), p.Penalty},
	} {
		switch {
		case e.amount > 0:
			entries = append(entries, Entry{Account: e.account, Credit: e.amount})
		case e.amount < 0:
			entries = append(entries, Entry{Account: e.account, Debit: -e.amount})
		}
	}
	posting, err := NewPosting(p.TransactionID, PostingRepayment, r.id, p.At, entries...)
	if err != nil {
		return Posting{}, err
	}
	// A loan that keeps books settles its receivables and the advance (the accrual basis).
	if posting, err = loan.booksPosting(posting, func(st BooksState, cash []Entry) (BooksState, []Entry) {
		return st.Repayment(loan.id, cash, b.paidSince(paid))
	}); err != nil {
		return Posting{}, err
	}
	r.payment = &p
	r.record(r.partnerID, p.At, RepaymentChanged{RequestID: r.id, ApplicationID: loan.applicationID,
		ContractNumber: loan.contractNumber, Status: RepaymentSuccess, Amount: p.Amount, PaymentType: p.Type,
		Channel: p.Channel, Recovery: p.Recovery, LoanClosed: split.Closed})
	return posting, nil
}

// repay applies a repayment made at `at` to the loan's book; Payable checked the loan is open.
func (l *Loan) repay(at time.Time, typ PaymentType, amount int64) (RepaymentSplit, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return RepaymentSplit{}, err
	}
	split, err := b.apply(l.dayOf(at), typ, amount)
	if err != nil {
		return RepaymentSplit{}, err
	}
	l.repayments++
	if split.Closed {
		l.closedAt = at
	}
	return split, nil
}

// ID returns the request id (requestId).
func (r *Repayment) ID() uuid.UUID { return r.id }

// PartnerID returns the owning partner.
func (r *Repayment) PartnerID() uuid.UUID { return r.partnerID }

// LoanID returns the loan's internal id.
func (r *Repayment) LoanID() uuid.UUID { return r.loanID }

// ContractNumber returns the loan's contract number (loanId).
func (r *Repayment) ContractNumber() string { return r.contractNumber }

// Quote returns the debt at check.
func (r *Repayment) Quote() Position { return r.quote }

// AccountBalance returns the demand account balance at check.
func (r *Repayment) AccountBalance() int64 { return r.accountBalance }

// Payment returns the posted payment, nil before pay.
func (r *Repayment) Payment() *Payment { return r.payment }
