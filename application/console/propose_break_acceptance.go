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
	UoW            ports.UnitOfWork
	Clock          ports.Clock
	Reconciliation ports.ReconciliationRepository
	Transfers      ports.TransferRepository
	Proposals      ports.ProposalRepository
	Audit          Audit
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
	breaks, err := breaksInStatus(ctx, h.Reconciliation, h.Proposals, w.Breaks, ports.BreakOpen, h.Audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	// Each is tried on the clock its approval will post on: its line's partner's.
	objects, err := h.Reconciliation.Trace(ctx, breaks)
	if err != nil {
		return uuid.Nil, err
	}
	for _, b := range breaks {
		var t *domain.Transfer
		if tid, ok := transferOfBreak(b); ok {
			if t, err = h.Transfers.Get(ctx, tid); err != nil && !errors.Is(err, domain.ErrTransferNotFound) {
				return uuid.Nil, err
			}
		}
		if _, err := domain.AcceptNetworkSide(uuid.Nil, b.ID, b.Break, t, h.Clock.Now(objects[b.ID].PartnerID)); err != nil {
			if len(breaks) > 1 {
				err = fmt.Errorf("%s: %w", b.LineID, err)
			}
			return uuid.Nil, err
		}
	}
	return proposeBreakWork(ctx, h.UoW, h.Proposals, h.Audit, who, domain.AcceptBreak, breaks, objects, w.Note)
}
