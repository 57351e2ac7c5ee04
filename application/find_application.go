package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// FindApplication finds the partner's application by the externalId the partner gave it at
// registration: the way back to an applicationId whose answer was lost.
type FindApplication struct {
	PartnerID  uuid.UUID
	ExternalID uuid.UUID
}

// FindApplicationHandler answers the find call; it changes and stores nothing.
type FindApplicationHandler struct {
	Applications ports.ApplicationRepository
}

// Handle returns what application info shows of the partner's application with that
// externalId; domain.ErrApplicationNotFound when the partner registered none with it.
func (h *FindApplicationHandler) Handle(ctx context.Context, q FindApplication) (domain.ApplicationSummary, error) {
	s, err := h.Applications.SummaryByExternalID(ctx, q.PartnerID, q.ExternalID)
	if err != nil {
		return domain.ApplicationSummary{}, err
	}
	if s.PartnerID != q.PartnerID { // never: the store looks among the partner's own
		return domain.ApplicationSummary{}, domain.ErrApplicationNotFound
	}
	return s, nil
}
