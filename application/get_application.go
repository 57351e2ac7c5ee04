package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetApplication reads an application (endpoint 5).
type GetApplication struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
}

// GetApplicationHandler answers application info; it changes and stores nothing.
type GetApplicationHandler struct {
	Applications ports.ApplicationRepository
}

// Handle returns what application info shows of the partner's application.
func (h *GetApplicationHandler) Handle(ctx context.Context, q GetApplication) (domain.ApplicationSummary, error) {
	s, err := h.Applications.Summary(ctx, q.ApplicationID)
	if err != nil {
		return domain.ApplicationSummary{}, err
	}
	if s.PartnerID != q.PartnerID {
		return domain.ApplicationSummary{}, domain.ErrApplicationNotFound
	}
	return s, nil
}
