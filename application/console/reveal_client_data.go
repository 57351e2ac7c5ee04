package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RevealClientDataHandler shows an application's personal data, masked everywhere else, to
// an officer, and records that they saw it.
type RevealClientDataHandler struct {
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Audit        Audit
}

// Handle records the reveal, then returns the application with its data; no record, no data.
func (h *RevealClientDataHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (*domain.Application, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return nil, err
	}
	var a *domain.Application
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		var err error
		if a, err = h.Applications.Get(ctx, id); err != nil {
			return err
		}
		return h.Audit.recordOn(ctx, who, a.PartnerID(), "application.reveal_personal_data", "application:"+id.String(), "clientData and phones")
	})
	return a, err
}
