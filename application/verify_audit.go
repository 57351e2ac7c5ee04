package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// VerifyAuditHandler checks the audit log's chain (`tiyin audit verify`, and the console's
// button), against the last verification that found it intact, and keeps the result.
type VerifyAuditHandler struct {
	clock ports.Clock
	log   ports.AuditLog
}

// NewVerifyAuditHandler returns the handler on the ports it uses.
func NewVerifyAuditHandler(clock ports.Clock, log ports.AuditLog) *VerifyAuditHandler {
	return &VerifyAuditHandler{clock: clock, log: log}
}

// Handle verifies the whole log as who (an admin, or the command line) and records the result.
func (h *VerifyAuditHandler) Handle(ctx context.Context, who Actor) (ports.AuditVerification, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return ports.AuditVerification{}, err
	}
	last, err := h.log.LastVerification(ctx)
	if err != nil {
		return ports.AuditVerification{}, err
	}
	if last != nil && !last.Intact() {
		last = nil // a broken log is compared with nothing: the chain says the rest
	}
	v, err := h.log.Verify(ctx, last)
	if err != nil {
		return ports.AuditVerification{}, err
	}
	v.At = h.clock.Now(uuid.Nil)
	return v, h.log.SaveVerification(ctx, v)
}

// LastAuditVerificationHandler reads the last verification, for the console's audit page.
type LastAuditVerificationHandler struct {
	log ports.AuditLog
}

// NewLastAuditVerificationHandler returns the handler on the ports it uses.
func NewLastAuditVerificationHandler(log ports.AuditLog) *LastAuditVerificationHandler {
	return &LastAuditVerificationHandler{log: log}
}

// Handle returns the last verification, nil when the log was never verified.
func (h *LastAuditVerificationHandler) Handle(ctx context.Context, who Actor) (*ports.AuditVerification, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.log.LastVerification(ctx)
}
