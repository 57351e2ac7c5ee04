package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ListPartnersHandler lists partners for operators.
type ListPartnersHandler struct {
	Partners ports.PartnerRepository
}

// Handle returns every partner, oldest first.
func (h *ListPartnersHandler) Handle(ctx context.Context) ([]domain.Partner, error) {
	return h.Partners.List(ctx)
}
