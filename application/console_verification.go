package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ConsoleVerificationHandler completes a client's phone verification after the bank's call
// centre spoke to them: the real counterpart of the sandbox's verification endpoint.
type ConsoleVerificationHandler struct {
	uow          ports.UnitOfWork
	applications ports.ApplicationRepository
	clock        ports.Clock
	audit        audit
}

// NewConsoleVerificationHandler returns the handler on the ports it uses.
func NewConsoleVerificationHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository,
	log ports.AuditLog) *ConsoleVerificationHandler {
	return &ConsoleVerificationHandler{uow: uow, applications: applications, clock: clock, audit: audit{clock: clock, log: log}}
}

// Handle completes the verification. Completing it twice is refused the second time
// (domain.ErrWrongState), and changes nothing.
func (h *ConsoleVerificationHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		err := h.applications.Update(ctx, id, func(a *domain.Application) error {
			return a.CompleteVerification(h.clock.Now(a.PartnerID()))
		})
		if err != nil {
			return err
		}
		return h.audit.record(ctx, who, "application.complete_verification", "application:"+id.String(), "")
	})
}
