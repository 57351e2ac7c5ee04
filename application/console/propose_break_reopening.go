package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeBreakReopeningHandler records an officer's proposal to reopen explained breaks (issue
// 47, 5): an explanation that proved wrong (a lost credit explained as made) is undone only when
// a second officer approves it (DecideProposalHandler); the break is then OPEN again, with its
// normal actions. A RESOLVED break is not reopened: its adjustment is posted, and a new
// difference is a new break of a later run.
type ProposeBreakReopeningHandler struct {
	UoW            ports.UnitOfWork
	Reconciliation ports.ReconciliationRepository
	Proposals      ports.ProposalRepository
	Audit          Audit
}

// Handle proposes reopening the breaks of w, one or several at once, each EXPLAINED and covered
// by no open proposal, with the officer's note (why the explanation was wrong). It returns the
// proposal's id.
func (h *ProposeBreakReopeningHandler) Handle(ctx context.Context, who Actor, w BreakWork) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	breaks, err := breaksInStatus(ctx, h.Reconciliation, h.Proposals, w.Breaks, ports.BreakExplained, h.Audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	return proposeBreakWork(ctx, h.UoW, h.Proposals, h.Audit, who, domain.ReopenBreak, breaks, nil, w.Note)
}
