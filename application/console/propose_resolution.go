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
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Transfers    ports.TransferRepository
	Proposals    ports.ProposalRepository
	Audit        Audit
}

// Handle records the proposal, when the object's outcome is unknown now and it has no open
// proposal; it returns the proposal's id.
func (h *ProposeResolutionHandler) Handle(ctx context.Context, who Actor, cmd ProposeResolution) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	partner, err := unknownNow(ctx, h.Applications, h.Transfers, cmd.Kind, cmd.ObjectID)
	if err != nil {
		return uuid.Nil, err
	}
	p, err := domain.NewProposal(application.NewID(), cmd.Kind, cmd.ObjectID, cmd.Done, cmd.Ref, cmd.Note, who.ID, h.Audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	return p.ID, recordProposal(ctx, h.UoW, h.Proposals, h.Audit, who, partner, p)
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
