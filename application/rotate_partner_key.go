package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RotatePartnerKey replaces a partner's API key; the old key keeps working for Overlap
// (0: it stops at once; domain.DefaultKeyOverlap is what the console and the CLI offer first).
type RotatePartnerKey struct {
	Name    string
	Overlap time.Duration
}

// RotatedKey is the new key, shown once and never stored, and until when the old one works.
type RotatedKey struct {
	APIKey   string
	OldUntil time.Time // zero: the old key stopped at once
}

// RotatePartnerKeyHandler rotates keys.
type RotatePartnerKeyHandler struct {
	clock    ports.Clock
	uow      ports.UnitOfWork
	partners ports.PartnerRepository
}

// NewRotatePartnerKeyHandler returns the handler on the ports it uses.
func NewRotatePartnerKeyHandler(clock ports.Clock, uow ports.UnitOfWork, partners ports.PartnerRepository) *RotatePartnerKeyHandler {
	return &RotatePartnerKeyHandler{clock: clock, uow: uow, partners: partners}
}

// Handle sets a new key and returns it.
func (h *RotatePartnerKeyHandler) Handle(ctx context.Context, cmd RotatePartnerKey) (RotatedKey, error) {
	key, hash := newAPIKey()
	var until time.Time
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			if err := p.RotateKey(hash, h.clock.Now(uuid.Nil), cmd.Overlap); err != nil {
				return err
			}
			until = p.PreviousKeyUntil
			return nil
		})
	})
	if err != nil {
		return RotatedKey{}, err
	}
	return RotatedKey{APIKey: key, OldUntil: until}, nil
}
