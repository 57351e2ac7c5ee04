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
	UoW      ports.UnitOfWork
	Partners ports.PartnerRepository
}

// Handle disables or enables the partner.
func (h *SetPartnerEnabledHandler) Handle(ctx context.Context, cmd SetPartnerEnabled) error {
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			p.Disabled = !cmd.Enabled
			return nil
		})
	})
}
