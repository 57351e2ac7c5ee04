package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RotatePartnerKey replaces a partner's API key; the old key stops working.
type RotatePartnerKey struct {
	Name string
}

// RotatePartnerKeyHandler rotates keys.
type RotatePartnerKeyHandler struct {
	uow      ports.UnitOfWork
	partners ports.PartnerRepository
}

// NewRotatePartnerKeyHandler returns the handler on the ports it uses.
func NewRotatePartnerKeyHandler(uow ports.UnitOfWork, partners ports.PartnerRepository) *RotatePartnerKeyHandler {
	return &RotatePartnerKeyHandler{uow: uow, partners: partners}
}

// Handle sets a new key and returns it; it is shown once and never stored.
func (h *RotatePartnerKeyHandler) Handle(ctx context.Context, cmd RotatePartnerKey) (string, error) {
	key, hash := newAPIKey()
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			p.KeyHash = hash
			return nil
		})
	})
	if err != nil {
		return "", err
	}
	return key, nil
}
