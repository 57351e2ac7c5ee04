package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ExplainBreakHandler marks a reconciliation break explained with an officer's note (what the
// network or the bank said), in one transaction with its audit line.
type ExplainBreakHandler struct {
	uow            ports.UnitOfWork
	reconciliation ports.ReconciliationRepository
	audit          audit
}

// NewExplainBreakHandler returns the handler on the ports it uses.
func NewExplainBreakHandler(clock ports.Clock, uow ports.UnitOfWork, reconciliation ports.ReconciliationRepository,
	log ports.AuditLog) *ExplainBreakHandler {
	return &ExplainBreakHandler{uow: uow, reconciliation: reconciliation, audit: audit{clock: clock, log: log}}
}

// Handle explains break id; a note is required.
func (h *ExplainBreakHandler) Handle(ctx context.Context, who Actor, id uuid.UUID, note string) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	note, err := domain.ParseNote(note)
	if err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.reconciliation.Close(ctx, id, ports.BreakExplained, note, who.Name, h.audit.now()); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "break.explain", "break:"+id.String(), note)
	})
}
