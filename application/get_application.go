package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// GetApplication reads an application (endpoint 5).
type GetApplication struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
}

// GetApplicationHandler answers application info; it changes and stores nothing.
type GetApplicationHandler struct{ d Deps }

// Handle returns the partner's application.
func (h *GetApplicationHandler) Handle(ctx context.Context, q GetApplication) (*domain.Application, error) {
	return getOwned(ctx, h.d.Applications, q.PartnerID, q.ApplicationID)
}
