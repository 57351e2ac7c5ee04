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

// RotatedKey is the new key, shown once and stored only as its hash (the sandbox partner's also
// sealed, as every start prints it), and until when the old one works.
type RotatedKey struct {
	APIKey   string
	OldUntil time.Time // zero: the old key stopped at once
}

// RotatePartnerKeyHandler rotates keys.
type RotatePartnerKeyHandler struct {
	clock    ports.Clock
	uow      ports.UnitOfWork
	partners ports.PartnerRepository
	sealer   ports.Sealer
}

// NewRotatePartnerKeyHandler returns the handler on the ports it uses. sealer may be nil (a
// command run without a data key).
func NewRotatePartnerKeyHandler(clock ports.Clock, uow ports.UnitOfWork, partners ports.PartnerRepository, sealer ports.Sealer) *RotatePartnerKeyHandler {
	return &RotatePartnerKeyHandler{clock: clock, uow: uow, partners: partners, sealer: sealer}
}

// Handle sets a new key and returns it. The sandbox partner's key, which each start prints
// again (EnsurePartnerHandler), is kept sealed in turn: the next start prints the key the
// operator rotated to, not a new one that would leave the operator's key stopped.
func (h *RotatePartnerKeyHandler) Handle(ctx context.Context, cmd RotatePartnerKey) (RotatedKey, error) {
	key, hash := newAPIKey()
	var until time.Time
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			if err := p.RotateKey(hash, h.clock.Now(uuid.Nil), cmd.Overlap); err != nil {
				return err
			}
			until = p.PreviousKeyUntil
			if p.SandboxKey == "" {
				return nil
			}
			// Without the data key the new key cannot be kept: the next start makes another.
			p.SandboxKey = ""
			if h.sealer == nil {
				return nil
			}
			sealed, err := h.sealer.Seal([]byte(key), "")
			p.SandboxKey = sealed
			return err
		})
	})
	if err != nil {
		return RotatedKey{}, err
	}
	return RotatedKey{APIKey: key, OldUntil: until}, nil
}
