package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ProposalKind is what a maker-checker proposal decides.
type ProposalKind string

// The decisions that move money, and so take two officers.
const (
	// ResolveApplication settles an application whose stage's gateway outcome is unknown: done
	// at the bank (the stage completes, with the bank's reference where the stage has one; the
	// last stage issues the loan) or not done (the application FAILS).
	ResolveApplication ProposalKind = "RESOLVE_APPLICATION"
	// ResolveTransfer settles a transfer stuck in PROCESSING: done (the card was credited, the
	// hold is captured) or not done (the hold is released).
	ResolveTransfer ProposalKind = "RESOLVE_TRANSFER"
	// AcceptBreak accepts the network's side of a reconciliation break: tiyin's books are
	// adjusted to what the network says happened (AcceptNetworkSide). Its object is the break.
	AcceptBreak ProposalKind = "ACCEPT_BREAK"
	// ExplainBreak closes breaks EXPLAINED with the maker's note, for breaks whose two sides do
	// not agree on money (Break.MoneyAgrees): closing one says the books are right as they stand.
	ExplainBreak ProposalKind = "EXPLAIN_BREAK"
	// ReopenBreak opens an EXPLAINED break again, so its normal actions are offered again.
	ReopenBreak ProposalKind = "REOPEN_BREAK"
)

// IsBreakWork reports whether the proposal's kind works reconciliation breaks: its object is a
// break, or, for several at once, a batch whose breaks are Breaks.
func (k ProposalKind) IsBreakWork() bool {
	return k == AcceptBreak || k == ExplainBreak || k == ReopenBreak
}

// MaxBreaksAtOnce is how many breaks one proposal, or one explanation, may cover.
const MaxBreaksAtOnce = 200

// Covers is what a break proposal works: its Breaks when it covers several, else its object.
func (p *Proposal) Covers() []uuid.UUID {
	if len(p.Breaks) > 0 {
		return p.Breaks
	}
	return []uuid.UUID{p.ObjectID}
}

// CoverBreaks makes a break proposal cover breaks: one break is its object; several are a batch
// (its object a new id, batch), each break once. It refuses a proposal of another kind, none
// and more than MaxBreaksAtOnce.
func (p *Proposal) CoverBreaks(batch uuid.UUID, breaks []uuid.UUID) error {
	seen := map[uuid.UUID]bool{}
	var ids []uuid.UUID
	for _, id := range breaks {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	switch {
	case !p.Kind.IsBreakWork():
		return fmt.Errorf("%w: only a break's proposal covers breaks", ErrProposalIncomplete)
	case len(ids) == 0:
		return fmt.Errorf("%w: select at least one break", ErrProposalIncomplete)
	case len(ids) > MaxBreaksAtOnce:
		return fmt.Errorf("%w: at most %d breaks at once", ErrProposalIncomplete, MaxBreaksAtOnce)
	case len(ids) == 1:
		p.ObjectID, p.Breaks = ids[0], nil
	default:
		p.ObjectID, p.Breaks = batch, ids
	}
	return nil
}

// ProposalStatus is where a proposal stands.
type ProposalStatus string

// The statuses of a proposal.
const (
	ProposalOpen     ProposalStatus = "OPEN"
	ProposalApproved ProposalStatus = "APPROVED"
	ProposalRejected ProposalStatus = "REJECTED"
	ProposalExpired  ProposalStatus = "EXPIRED"
)

// Proposal is one officer's decision waiting for another's approval (maker-checker).
type Proposal struct {
	ID       uuid.UUID
	Kind     ProposalKind
	ObjectID uuid.UUID
	Done     bool
	Ref      string
	Note     string
	// Action is a loan action's terms; zero for the resolutions.
	Action LoanActionTerms
	// Breaks are the breaks a break proposal covering several works (its object is then the
	// batch's own id); none when it works one, its object.
	Breaks     []uuid.UUID
	Status     ProposalStatus
	ProposedBy uuid.UUID
	ProposedAt time.Time
	DecidedBy  uuid.UUID
	DecidedAt  time.Time
}

// NewProposal records an officer's proposal. The note says what the bank answered when asked;
// it is required, since the approver decides on it.
func NewProposal(id uuid.UUID, kind ProposalKind, object uuid.UUID, done bool, ref, note string, by uuid.UUID, now time.Time) (*Proposal, error) {
	if kind != ResolveApplication && kind != ResolveTransfer && !kind.IsBreakWork() {
		return nil, errors.New("unknown proposal kind")
	}
	note, ref = strings.TrimSpace(note), strings.TrimSpace(ref)
	if note == "" || len(note) > 500 {
		return nil, fmt.Errorf("%w: say in a note (up to 500 characters) what the bank answered", ErrProposalIncomplete)
	}
	if len(ref) > 100 {
		return nil, fmt.Errorf("%w: the bank's reference is at most 100 characters", ErrProposalIncomplete)
	}
	return &Proposal{ID: id, Kind: kind, ObjectID: object, Done: done, Ref: ref, Note: note, Status: ProposalOpen,
		ProposedBy: by, ProposedAt: now}, nil
}

// StatusAt is the proposal's status at now: an open one past ProposalTTL is EXPIRED.
func (p *Proposal) StatusAt(now time.Time) ProposalStatus {
	if p.Status == ProposalOpen && !now.Before(p.ProposedAt.Add(ProposalTTL)) {
		return ProposalExpired
	}
	return p.Status
}

// Expire records an open proposal past ProposalTTL as EXPIRED; it reports whether it did.
func (p *Proposal) Expire(now time.Time) bool {
	if p.Status != ProposalOpen || p.StatusAt(now) != ProposalExpired {
		return false
	}
	p.Status = ProposalExpired
	return true
}

// Decide approves or rejects the proposal by another officer than its maker. An expired one is
// recorded EXPIRED and refused.
func (p *Proposal) Decide(approve bool, by uuid.UUID, now time.Time) error {
	switch p.StatusAt(now) {
	case ProposalOpen:
	case ProposalExpired:
		p.Status = ProposalExpired
		return ErrProposalClosed
	default:
		return ErrProposalClosed
	}
	if by == p.ProposedBy {
		return ErrSelfApproval
	}
	p.Status, p.DecidedBy, p.DecidedAt = ProposalRejected, by, now
	if approve {
		p.Status = ProposalApproved
	}
	return nil
}

// Withdraw closes the proposal without a decision, when the object it was about no longer asks
// for one: an unknown outcome the gateway answered meanwhile, a break an officer explained.
func (p *Proposal) Withdraw(by uuid.UUID, now time.Time) {
	p.Status, p.DecidedBy, p.DecidedAt = ProposalRejected, by, now
}

// ResolveUnknown settles the current stage whose gateway outcome is unknown, as the bank's
// operators found it: done completes the stage as if the gateway had answered so (ref is the
// bank's reference, required by the stages that return one), not done FAILS the application.
// It returns the new loan when the last stage completes.
func (a *Application) ResolveUnknown(done bool, ref string, ids LoanProduct, now time.Time) (*Loan, error) {
	if !a.OutcomeUnknown() {
		return nil, ErrOutcomeKnown
	}
	const resolved = "resolved by the bank's operators"
	if !done {
		a.keepRecord(StageRecord{ApplicationID: a.id, Stage: a.stage.Name, Outcome: OutcomeFailed,
			Message: resolved + ": not done at the bank", At: now})
		a.fail("not done at the bank, as the bank's operators found", now)
		return nil, nil
	}
	switch a.stage.Name {
	case StagePreScoring, StagePreScoringInfo:
		return nil, fmt.Errorf("%w: pre-scoring moves no money and has no result to give by hand: retry it", ErrProposalIncomplete)
	case StageOpenAccount, StageOpenLoanApplication, StageLoanIssuance:
		if ref == "" {
			return nil, fmt.Errorf("%w: this stage needs the bank's reference (the account number, or the core banking reference)", ErrProposalIncomplete)
		}
	}
	return a.CompleteStage(a.stage.Name, StageResult{Outcome: OutcomeDone, Ref: ref, Message: resolved + ": done at the bank"}, ids, now)
}

// OutcomeUnknown reports whether the application waits on a gateway call whose outcome is
// unknown: what operators may resolve by hand.
func (a *Application) OutcomeUnknown() bool {
	return a.status == StatusInProgress && !a.unknownSince.IsZero()
}

// RetryNow makes the stage an application waits in (a backoff after an unanswered or
// unreachable gateway call, a poll) due at once; operators use it after the bank fixed what
// made the stage wait.
func (a *Application) RetryNow(now time.Time) error {
	if (a.status != StatusNew && a.status != StatusInProgress) || a.nextRunAt.IsZero() {
		return a.refuse("retry")
	}
	if a.nextRunAt.After(now) {
		a.nextRunAt, a.updatedAt = now, now
	}
	return nil
}
