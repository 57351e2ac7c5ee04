package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// auditPage bounds one page of the audit log; the CSV export takes up to auditExport.
const (
	auditPage   = 200
	auditExport = 100_000
)

// AuditTrailHandler reads the audit log.
type AuditTrailHandler struct {
	Log ports.AuditLog
}

// Handle returns the entries the filter selects, newest first; export lifts the page's bound.
func (h *AuditTrailHandler) Handle(ctx context.Context, who Actor, f ports.AuditFilter, export bool) ([]ports.AuditEntry, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	f.Limit = auditPage
	if export {
		f.Limit = auditExport
	}
	return h.Log.List(ctx, f)
}
