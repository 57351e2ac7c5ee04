package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// DisablePartner blocks a partner's key; its calls then answer code 3.
type DisablePartner struct {
	Name string
}

// DisablePartnerHandler disables partners.
type DisablePartnerHandler struct {
	partners ports.PartnerRepository
}

// NewDisablePartnerHandler returns the handler on the ports it uses.
func NewDisablePartnerHandler(partners ports.PartnerRepository) *DisablePartnerHandler {
	return &DisablePartnerHandler{partners: partners}
}

// Handle disables the partner.
func (h *DisablePartnerHandler) Handle(ctx context.Context, cmd DisablePartner) error {
	return h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
		p.Disabled = true
		return nil
	})
}
