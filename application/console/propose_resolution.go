package console

import (
	"context"
	"fmt"

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
