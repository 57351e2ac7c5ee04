package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SetPartnerEnabled disables a partner's key (its calls then answer code 3) or enables it
// again.
type SetPartnerEnabled struct {
	Name    string
	Enabled bool
}

// SetPartnerEnabledHandler disables and enables partners.
type SetPartnerEnabledHandler struct {
	uow      ports.UnitOfWork
	partners ports.PartnerRepository
}

// NewSetPartnerEnabledHandler returns the handler on the ports it uses.
func NewSetPartnerEnabledHandler(uow ports.UnitOfWork, partners ports.PartnerRepository) *SetPartnerEnabledHandler {
	return &SetPartnerEnabledHandler{uow: uow, partners: partners}
}

// Handle disables or enables the partner.
func (h *SetPartnerEnabledHandler) Handle(ctx context.Context, cmd SetPartnerEnabled) error {
	return h.uow.Do(ctx, func(ctx context.Context) error {
		return h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			p.Disabled = !cmd.Enabled
			return nil
		})
	})
}
