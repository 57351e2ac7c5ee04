package console

import (
	"context"

	"github.com/tiyin/tiyin/ports"
)

// AuditRefusalHandler records a console request its operator's role refused: an operator
// probing for more than their role allows leaves a trace.
type AuditRefusalHandler struct {
	uow   ports.UnitOfWork
	audit audit
}

// NewAuditRefusalHandler returns the handler on the ports it uses.
func NewAuditRefusalHandler(clock ports.Clock, uow ports.UnitOfWork, log ports.AuditLog) *AuditRefusalHandler {
	return &AuditRefusalHandler{uow: uow, audit: audit{clock: clock, log: log}}
}

// Handle appends the refusal of what (the request, "POST /console/…") to the audit log.
func (h *AuditRefusalHandler) Handle(ctx context.Context, who Actor, what string) error {
	return h.uow.Do(ctx, func(ctx context.Context) error {
		return h.audit.record(ctx, who, "access.refused", what, "role "+string(who.Role))
	})
}
