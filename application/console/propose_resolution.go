package console

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeResolution is an officer's finding, after asking the bank, of how a gateway call
// whose outcome tiyin does not know ended: done or not done.
type ProposeResolution struct {
	Kind     domain.ProposalKind
	ObjectID uuid.UUID
	Done     bool
	Ref      string
	Note     string
}

// ProposeResolutionHandler records proposals; another officer approves them
// (DecideProposalHandler), since they decide money.
type ProposeResolutionHandler struct {
	uow          ports.UnitOfWork
	applications ports.ApplicationRepository
	transfers    ports.TransferRepository
	proposals    ports.ProposalRepository
	audit        audit
}

// NewProposeResolutionHandler returns the handler on the ports it uses.
func NewProposeResolutionHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository,
	transfers ports.TransferRepository, proposals ports.ProposalRepository, log ports.AuditLog) *ProposeResolutionHandler {
	return &ProposeResolutionHandler{uow: uow, applications: applications, transfers: transfers, proposals: proposals,
		audit: audit{clock: clock, log: log}}
}

// Handle records the proposal, when the object's outcome is unknown now and it has no open
// proposal; it returns the proposal's id.
func (h *ProposeResolutionHandler) Handle(ctx context.Context, who Actor, cmd ProposeResolution) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	partner, err := unknownNow(ctx, h.applications, h.transfers, cmd.Kind, cmd.ObjectID)
	if err != nil {
		return uuid.Nil, err
	}
	p, err := domain.NewProposal(application.NewID(), cmd.Kind, cmd.ObjectID, cmd.Done, cmd.Ref, cmd.Note, who.ID, h.audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	return p.ID, recordProposal(ctx, h.uow, h.proposals, h.audit, who, partner, p)
}

// recordProposal stores p as its object's one open proposal (an expired one makes room), in one
// transaction with its audit line, at the time of the object's partner.
func recordProposal(ctx context.Context, uow ports.UnitOfWork, proposals ports.ProposalRepository, a audit, who Actor,
	partner uuid.UUID, p *domain.Proposal) error {
	return uow.Do(ctx, func(ctx context.Context) error { return storeProposal(ctx, proposals, a, who, partner, p) })
}

// storeProposal is recordProposal in the transaction of ctx.
func storeProposal(ctx context.Context, proposals ports.ProposalRepository, a audit, who Actor, partner uuid.UUID, p *domain.Proposal) error {
	if err := expireStale(ctx, proposals, p.ObjectID, p.ProposedAt); err != nil {
		return err
	}
	if err := proposals.Create(ctx, p); err != nil {
		return err
	}
	return a.recordOn(ctx, who, partner, "proposal.create", objectName(p), describe(p))
}

// expireStale records the object's open proposals past domain.ProposalTTL as EXPIRED, so they no
// longer hold its one open slot.
func expireStale(ctx context.Context, proposals ports.ProposalRepository, object uuid.UUID, now time.Time) error {
	ps, err := proposals.List(ctx, object, pageRows)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.StatusAt(now) != domain.ProposalExpired || p.Status != domain.ProposalOpen {
			continue
		}
		if err := proposals.Update(ctx, p.ID, func(x *domain.Proposal) error { x.Expire(now); return nil }); err != nil {
			return err
		}
	}
	return nil
}

// asOf shows proposals as they stand at now: an open one past its 24 hours is EXPIRED.
func asOf(ps []*domain.Proposal, now time.Time) []*domain.Proposal {
	for _, p := range ps {
		p.Status = p.StatusAt(now)
	}
	return ps
}

// unknownNow refuses an object whose outcome is known: an application not waiting on an
// unanswered call, a transfer not PROCESSING.
func unknownNow(ctx context.Context, applications ports.ApplicationRepository, transfers ports.TransferRepository,
	kind domain.ProposalKind, id uuid.UUID) (partner uuid.UUID, err error) {
	switch kind {
	case domain.ResolveApplication:
		a, err := applications.Get(ctx, id)
		if err != nil {
			return uuid.Nil, err
		}
		if !a.OutcomeUnknown() {
			return uuid.Nil, domain.ErrOutcomeKnown
		}
		return a.PartnerID(), nil
	case domain.ResolveTransfer:
		t, err := transfers.Get(ctx, id)
		if err != nil {
			return uuid.Nil, err
		}
		if t.Status() != domain.TransferProcessing {
			return uuid.Nil, domain.ErrOutcomeKnown
		}
		return t.PartnerID(), nil
	}
	return uuid.Nil, fmt.Errorf("unknown proposal kind %q", kind)
}

// objectName is how the audit log names a proposal's object.
func objectName(p *domain.Proposal) string {
	if p.Kind.IsLoanAction() {
		return "loan:" + p.ObjectID.String()
	}
	switch p.Kind {
	case domain.ResolveTransfer:
		return "transfer:" + p.ObjectID.String()
	case domain.BulkRepayments, domain.BulkLoanActions:
		return "bulk:" + p.ObjectID.String()
	}
	if p.Kind.IsBreakWork() {
		return breakObject(p)
	}
	return "application:" + p.ObjectID.String()
}

// describe is a proposal in one line of the audit log.
func describe(p *domain.Proposal) string {
	if p.Kind.IsLoanAction() {
		s := fmt.Sprintf("proposal %s: %s", p.ID, p.Kind)
		if a := p.Action; a.Amount > 0 {
			s += fmt.Sprintf(" of %d tiyin", a.Amount)
		}
		if p.Action.Months > 0 {
			s += fmt.Sprintf(" by %d months", p.Action.Months)
		}
		if a := p.Action; p.Kind == domain.ActionManualRepayment {
			s += fmt.Sprintf(" (%s, %s, reference %s)", a.PaymentType, a.Channel, p.Ref)
		}
		return s + ": " + p.Note
	}
	if p.Kind.IsBreakWork() {
		return describeBreakWork(p)
	}
	if p.Kind.IsBulk() {
		return fmt.Sprintf("proposal %s: %s, %s", p.ID, p.Kind, p.Note)
	}
	outcome := "not done"
	if p.Done {
		outcome = "done"
	}
	s := fmt.Sprintf("proposal %s: %s as %s", p.ID, p.Kind, outcome)
	if p.Ref != "" {
		s += ", reference " + p.Ref
	}
	return s + ": " + p.Note
}
