package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
)

// ListPartnersHandler lists partners for operators.
type ListPartnersHandler struct{ d Deps }

// Handle returns every partner, oldest first.
func (h *ListPartnersHandler) Handle(ctx context.Context) ([]domain.Partner, error) {
	return h.d.Partners.List(ctx)
}
