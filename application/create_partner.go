package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CreatePartner registers a partner application.
type CreatePartner struct {
	Name string
}

// NewPartner is a created partner with its API key, which is shown once and never stored.
type NewPartner struct {
	Partner domain.Partner
	APIKey  string
}

// CreatePartnerHandler creates partners.
type CreatePartnerHandler struct {
	Clock    ports.Clock
	UoW      ports.UnitOfWork
	Partners ports.PartnerRepository
}

// Handle creates the partner and returns its one-time API key.
func (h *CreatePartnerHandler) Handle(ctx context.Context, cmd CreatePartner) (NewPartner, error) {
	name, err := domain.ParsePartnerName(cmd.Name)
	if err != nil {
		return NewPartner{}, err
	}
	key, hash := newAPIKey()
	p := domain.Partner{ID: NewID(), Name: name, KeyHash: hash, CreatedAt: h.Clock.Now(uuid.Nil)}
	if err := h.UoW.Do(ctx, func(ctx context.Context) error { return h.Partners.Create(ctx, p) }); err != nil {
		return NewPartner{}, err
	}
	return NewPartner{Partner: p, APIKey: key}, nil
}
