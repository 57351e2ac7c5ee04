package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ListPartnersHandler lists partners for operators.
type ListPartnersHandler struct {
	partners ports.PartnerRepository
}

// NewListPartnersHandler returns the handler on the ports it uses.
func NewListPartnersHandler(partners ports.PartnerRepository) *ListPartnersHandler {
	return &ListPartnersHandler{partners: partners}
}

// Handle returns every partner, oldest first.
func (h *ListPartnersHandler) Handle(ctx context.Context) ([]domain.Partner, error) {
	return h.partners.List(ctx)
}
