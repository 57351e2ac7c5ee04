package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ExplainBreakHandler marks a reconciliation break explained with an officer's note (what the
// network or the bank said), in one transaction with its audit line and the closing of any
// proposal to accept the break's other side that still waits for approval.
type ExplainBreakHandler struct {
	uow            ports.UnitOfWork
	reconciliation ports.ReconciliationRepository
	proposals      ports.ProposalRepository
	audit          audit
}

// NewExplainBreakHandler returns the handler on the ports it uses.
func NewExplainBreakHandler(clock ports.Clock, uow ports.UnitOfWork, reconciliation ports.ReconciliationRepository,
	proposals ports.ProposalRepository, log ports.AuditLog) *ExplainBreakHandler {
	return &ExplainBreakHandler{uow: uow, reconciliation: reconciliation, proposals: proposals, audit: audit{clock: clock, log: log}}
}

// Handle explains break id; a note is required. An acceptance of the break proposed and not
// yet decided is closed with it (rejected, audited proposal.supersede): once the break is
// explained, its approval could only be refused.
func (h *ExplainBreakHandler) Handle(ctx context.Context, who Actor, id uuid.UUID, note string) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	note, err := domain.ParseNote(note)
	if err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		// The proposals are locked before the break, in the order an approval locks them.
		superseded, err := h.supersede(ctx, who, id)
		if err != nil {
			return err
		}
		if err := h.reconciliation.Close(ctx, id, ports.BreakExplained, note, who.Name, h.audit.now()); err != nil {
			return err
		}
		if err := h.audit.record(ctx, who, "break.explain", "break:"+id.String(), note); err != nil {
			return err
		}
		for _, p := range superseded {
			if err := h.audit.record(ctx, who, "proposal.supersede", objectName(p), describe(p)+"; the break was explained"); err != nil {
				return err
			}
		}
		return nil
	})
}

// supersede closes the break's acceptances still open, in the transaction of ctx, and returns
// them. Each is checked again under its lock: one approved meanwhile is left as it is (and the
// break, resolved by it, refuses the explanation).
func (h *ExplainBreakHandler) supersede(ctx context.Context, who Actor, id uuid.UUID) ([]*domain.Proposal, error) {
	ps, err := h.proposals.List(ctx, id, attentionLimit)
	if err != nil {
		return nil, err
	}
	now := h.audit.now()
	var out []*domain.Proposal
	for _, p := range ps {
		if p.Kind != domain.AcceptBreak || p.StatusAt(now) != domain.ProposalOpen {
			continue
		}
		err := h.proposals.Update(ctx, p.ID, func(x *domain.Proposal) error {
			if x.StatusAt(now) == domain.ProposalOpen {
				x.Withdraw(who.ID, now)
				out = append(out, x)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
