package console

import (
	"context"

	"github.com/tiyin/tiyin/ports"
)

// AuditRefusalHandler records a console request its operator's role refused: an operator
// probing for more than their role allows leaves a trace.
type AuditRefusalHandler struct {
	UoW   ports.UnitOfWork
	Audit Audit
}

// Handle appends the refusal of what (the request, "POST /console/…") to the audit log.
func (h *AuditRefusalHandler) Handle(ctx context.Context, who Actor, what string) error {
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Audit.record(ctx, who, "access.refused", what, "role "+string(who.Role))
	})
}
