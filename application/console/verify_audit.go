package console

import (
	"context"
	"errors"
	"fmt"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// VerifyAudit asks for a verification of the audit log. Anchor, when set, is a head kept
// outside the database (`tiyin audit checkpoint`) that the log must still hold unchanged.
type VerifyAudit struct {
	Anchor *ports.AuditHead
}

// VerifyAuditHandler checks the audit log (`tiyin audit verify`, and the console's button) and
// keeps the result, sealed, with its own line in the log: a verification removed, or one
// forged, is then named by the next.
type VerifyAuditHandler struct {
	UoW   ports.UnitOfWork
	Audit Audit
}

// Handle verifies the whole log as who (an admin, or the command line) and records the result.
// The walk runs outside a transaction (it reads the whole log); the result and its line are
// kept in one.
func (h *VerifyAuditHandler) Handle(ctx context.Context, who Actor, cmd VerifyAudit) (ports.AuditVerification, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return ports.AuditVerification{}, err
	}
	v, err := h.Audit.Log.Verify(ctx, cmd.Anchor)
	if err != nil {
		return ports.AuditVerification{}, err
	}
	v.At = h.Audit.now()
	by := h.Audit.entry(who, ports.AuditVerified, "audit_log", verificationDetail(v, cmd.Anchor))
	err = h.UoW.Do(ctx, func(ctx context.Context) error { return h.Audit.Log.SaveVerification(ctx, v, by) })
	if errors.Is(err, ports.ErrNoAuditStart) {
		return v, nil // v says so; with nothing to seal it on, it is not kept
	}
	return v, err
}

// verificationDetail is what a verification's line says it found.
func verificationDetail(v ports.AuditVerification, anchor *ports.AuditHead) string {
	found := "intact"
	if !v.Intact() {
		found = v.Problem
	}
	d := fmt.Sprintf("%d entries up to #%d: %s", v.Entries, v.LastID, found)
	if anchor != nil {
		d += "; anchor " + anchor.String()
	}
	return d
}

// LastAuditVerificationHandler reads the last verification, for the console's audit page.
type LastAuditVerificationHandler struct {
	Log ports.AuditLog
}

// Handle returns the last verification, nil when the log was never verified.
func (h *LastAuditVerificationHandler) Handle(ctx context.Context, who Actor) (*ports.AuditVerification, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.Log.LastVerification(ctx)
}
