package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
)

// DisablePartner blocks a partner's key; its calls then answer code 3.
type DisablePartner struct {
	Name string
}

// DisablePartnerHandler disables partners.
type DisablePartnerHandler struct{ d Deps }

// Handle disables the partner.
func (h *DisablePartnerHandler) Handle(ctx context.Context, cmd DisablePartner) error {
	return h.d.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
		p.Disabled = true
		return nil
	})
}
