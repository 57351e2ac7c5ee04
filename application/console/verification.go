package console

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// VerificationHandler completes a client's phone verification after the bank's call
// centre spoke to them: the real counterpart of the sandbox's verification endpoint.
type VerificationHandler struct {
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Clock        ports.Clock
	Audit        Audit
}

// The outcomes of a verification call.
const (
	// CallConfirmed: the call confirmed the client, and the verification completes.
	CallConfirmed = "confirmed"
	// CallNotConfirmed: the call did not (not reached, or not the client); the note is kept
	// and the application waits on.
	CallNotConfirmed = "not_confirmed"
)

// Verification is the call centre's account of the client's verification call.
type Verification struct {
	ApplicationID uuid.UUID
	// Outcome is CallConfirmed or CallNotConfirmed.
	Outcome string
	// Note says what the call found and who made it: required, kept in the audit log.
	Note string
}

// Handle records the call's outcome with its note in the audit log, and completes the
// verification when the call confirmed the client. Either is refused (domain.ErrWrongState,
// nothing changed) unless the application waits for the call.
func (h *VerificationHandler) Handle(ctx context.Context, who Actor, cmd Verification) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	confirmed := cmd.Outcome == CallConfirmed
	if !confirmed && cmd.Outcome != CallNotConfirmed {
		return fmt.Errorf("%w: choose whether the call confirmed the client", domain.ErrActionIncomplete)
	}
	note, err := domain.ParseNote(cmd.Note)
	if err != nil {
		return err
	}
	action := "application.verification_not_confirmed"
	if confirmed {
		action = "application.complete_verification"
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		var partner uuid.UUID
		err := h.Applications.Update(ctx, cmd.ApplicationID, func(a *domain.Application) error {
			partner = a.PartnerID()
			if confirmed {
				return a.CompleteVerification(h.Clock.Now(a.PartnerID()))
			}
			return a.VerificationNotConfirmed()
		})
		if err != nil {
			return err
		}
		return h.Audit.recordOn(ctx, who, partner, action, "application:"+cmd.ApplicationID.String(), note)
	})
}
