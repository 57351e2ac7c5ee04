package console

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeBreakAcceptanceHandler records an officer's proposal to accept the network's side of
// an open reconciliation break; another officer approves it (DecideProposalHandler), since the
// adjusting entry moves money.
type ProposeBreakAcceptanceHandler struct {
	uow            ports.UnitOfWork
	clock          ports.Clock
	reconciliation ports.ReconciliationRepository
	transfers      ports.TransferRepository
	proposals      ports.ProposalRepository
	audit          audit
}

// NewProposeBreakAcceptanceHandler returns the handler on the ports it uses.
func NewProposeBreakAcceptanceHandler(clock ports.Clock, uow ports.UnitOfWork, reconciliation ports.ReconciliationRepository,
	transfers ports.TransferRepository, proposals ports.ProposalRepository, log ports.AuditLog) *ProposeBreakAcceptanceHandler {
	return &ProposeBreakAcceptanceHandler{uow: uow, clock: clock, reconciliation: reconciliation, transfers: transfers, proposals: proposals,
		audit: audit{clock: clock, log: log}}
}

// Handle proposes the acceptance of the breaks of w, one or several at once, with the officer's
// note: one proposal, which a second officer approves or rejects whole. A break that is not
// open, is covered by another open proposal, or whose network side cannot be booked
// (domain.AcceptNetworkSide refuses it, tried now on a copy) is refused before anyone is asked
// to approve it. It returns the proposal's id.
func (h *ProposeBreakAcceptanceHandler) Handle(ctx context.Context, who Actor, w BreakWork) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	breaks, err := breaksInStatus(ctx, h.reconciliation, h.proposals, w.Breaks, ports.BreakOpen, h.audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	// Each is tried on the clock its approval will post on: its line's partner's.
	objects, err := h.reconciliation.Trace(ctx, breaks)
	if err != nil {
		return uuid.Nil, err
	}
	for _, b := range breaks {
		var t *domain.Transfer
		if tid, ok := transferOfBreak(b); ok {
			if t, err = h.transfers.Get(ctx, tid); err != nil && !errors.Is(err, domain.ErrTransferNotFound) {
				return uuid.Nil, err
			}
		}
		if _, err := domain.AcceptNetworkSide(uuid.Nil, b.ID, b.Break, t, h.clock.Now(objects[b.ID].PartnerID)); err != nil {
			if len(breaks) > 1 {
				err = fmt.Errorf("%s: %w", b.LineID, err)
			}
			return uuid.Nil, err
		}
	}
	return proposeBreakWork(ctx, h.uow, h.proposals, h.audit, who, domain.AcceptBreak, breaks, objects, w.Note)
}

// openBreak is the break id, refused (domain.ErrWrongState) unless it is still OPEN.
func openBreak(ctx context.Context, reconciliation ports.ReconciliationRepository, id uuid.UUID) (ports.BreakRecord, error) {
	b, err := reconciliation.Break(ctx, id)
	if err == nil && b.Status != ports.BreakOpen {
		err = fmt.Errorf("%w: the break is %s already", domain.ErrWrongState, b.Status)
	}
	return b, err
}

// transferOfBreak is the transfer a credit line's break names, when its id is of tiyin's
// making (a transfer tiyin never ordered may still have no such id).
func transferOfBreak(b ports.BreakRecord) (uuid.UUID, bool) {
	if (b.Ours == nil || b.Ours.Kind != domain.LineCredit) && (b.Theirs == nil || b.Theirs.Kind != domain.LineCredit) {
		return uuid.Nil, false
	}
	return domain.TransferOfLine(b.LineID)
}
