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
	log ports.AuditLog
}

// NewAuditTrailHandler returns the handler on the ports it uses.
func NewAuditTrailHandler(log ports.AuditLog) *AuditTrailHandler { return &AuditTrailHandler{log: log} }

// Handle returns the entries the filter selects, newest first; export lifts the page's bound.
func (h *AuditTrailHandler) Handle(ctx context.Context, who Actor, f ports.AuditFilter, export bool) ([]ports.AuditEntry, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	f.Limit = auditPage
	if export {
		f.Limit = auditExport
	}
	return h.log.List(ctx, f)
}
