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
	Clock    ports.Clock
	UoW      ports.UnitOfWork
	Partners ports.PartnerRepository
	Sealer   ports.Sealer
}

// Handle sets a new key and returns it. The sandbox partner's key, which each start prints
// again (EnsurePartnerHandler), is kept sealed in turn: the next start prints the key the
// operator rotated to, not a new one that would leave the operator's key stopped.
func (h *RotatePartnerKeyHandler) Handle(ctx context.Context, cmd RotatePartnerKey) (RotatedKey, error) {
	key, hash := newAPIKey()
	var until time.Time
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			if err := p.RotateKey(hash, h.Clock.Now(uuid.Nil), cmd.Overlap); err != nil {
				return err
			}
			until = p.PreviousKeyUntil
			if p.SandboxKey == "" {
				return nil
			}
			// Without the data key the new key cannot be kept: the next start makes another.
			p.SandboxKey = ""
			if h.Sealer == nil {
				return nil
			}
			sealed, err := h.Sealer.Seal([]byte(key), "")
			p.SandboxKey = sealed
			return err
		})
	})
	if err != nil {
		return RotatedKey{}, err
	}
	return RotatedKey{APIKey: key, OldUntil: until}, nil
}
