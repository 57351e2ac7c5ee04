package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// EnsurePartner makes a partner with this name exist and answer to this key. It seeds the
// sandbox partner at start.
type EnsurePartner struct {
	Name string
	// APIKey is the key to accept; empty generates a new random one.
	APIKey string
}

// EnsurePartnerHandler seeds partners.
type EnsurePartnerHandler struct {
	clock    ports.Clock
	uow      ports.UnitOfWork
	partners ports.PartnerRepository
}

// NewEnsurePartnerHandler returns the handler on the ports it uses.
func NewEnsurePartnerHandler(clock ports.Clock, uow ports.UnitOfWork, partners ports.PartnerRepository) *EnsurePartnerHandler {
	return &EnsurePartnerHandler{clock: clock, uow: uow, partners: partners}
}

// Handle creates the partner or re-keys the existing one, and returns the key. A partner an
// operator disabled stays disabled, with its key: ErrPartnerDisabled.
func (h *EnsurePartnerHandler) Handle(ctx context.Context, cmd EnsurePartner) (string, error) {
	key, hash := cmd.APIKey, HashAPIKey(cmd.APIKey)
	if key == "" {
		key, hash = newAPIKey()
	}
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		err := h.partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			if p.Disabled {
				return ErrPartnerDisabled
			}
			p.KeyHash = hash
			return nil
		})
		if errors.Is(err, domain.ErrPartnerNotFound) {
			err = h.partners.Create(ctx, domain.Partner{ID: newID(), Name: cmd.Name, KeyHash: hash, CreatedAt: h.clock.Now(uuid.Nil)})
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return key, nil
}
