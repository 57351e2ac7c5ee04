package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
)

// RotatePartnerKey replaces a partner's API key; the old key stops working.
type RotatePartnerKey struct {
	Name string
}

// RotatePartnerKeyHandler rotates keys.
type RotatePartnerKeyHandler struct{ d Deps }

// Handle sets a new key and returns it; it is shown once and never stored.
func (h *RotatePartnerKeyHandler) Handle(ctx context.Context, cmd RotatePartnerKey) (string, error) {
	key, hash := newAPIKey()
	err := h.d.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
		p.KeyHash = hash
		return nil
	})
	if err != nil {
		return "", err
	}
	return key, nil
}
