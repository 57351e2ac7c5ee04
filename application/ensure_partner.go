package application

import (
	"bytes"
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
	// APIKey is the key to accept; empty keeps the key this partner was given at an earlier
	// start (kept sealed for that), or generates one at the first start.
	APIKey string
}

// EnsurePartnerHandler seeds partners.
type EnsurePartnerHandler struct {
	Clock    ports.Clock
	UoW      ports.UnitOfWork
	Partners ports.PartnerRepository
	Sealer   ports.Sealer
}

// Handle creates the partner or re-keys the existing one, and returns the key, which it keeps
// sealed with the data key so that the next start finds and prints it again (the sandbox
// partner only: every other partner's key is kept as a hash alone). Without a key given, the
// key kept is reused when it still is the partner's (an operator's rotate-key keeps the key it
// makes in its place; a key that no longer opens, or that a rotation without the data key
// left behind, is replaced by a new one). A partner an operator disabled stays disabled, with
// its key: ErrPartnerDisabled.
func (h *EnsurePartnerHandler) Handle(ctx context.Context, cmd EnsurePartner) (string, error) {
	var key string
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		key = cmd.APIKey
		err := h.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			if p.Disabled {
				return ErrPartnerDisabled
			}
			if key == "" {
				key = h.keptKey(*p)
			}
			sealed, err := h.seal(&key)
			if err != nil {
				return err
			}
			p.KeyHash, p.SandboxKey = HashAPIKey(key), sealed
			return nil
		})
		if errors.Is(err, domain.ErrPartnerNotFound) {
			sealed, serr := h.seal(&key)
			if serr != nil {
				return serr
			}
			err = h.Partners.Create(ctx, domain.Partner{ID: NewID(), Name: cmd.Name, KeyHash: HashAPIKey(key),
				SandboxKey: sealed, CreatedAt: h.Clock.Now(uuid.Nil)})
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// keptKey is the key sealed at an earlier start or rotation when it still is the partner's; ""
// when there is none, it no longer opens (another data key) or the key changed without it.
func (h *EnsurePartnerHandler) keptKey(p domain.Partner) string {
	if p.SandboxKey == "" {
		return ""
	}
	plain, err := h.Sealer.Open(p.SandboxKey, "")
	if err != nil || !bytes.Equal(HashAPIKey(string(plain)), p.KeyHash) {
		return ""
	}
	return string(plain)
}

// seal makes a key when *key is empty, and seals it.
func (h *EnsurePartnerHandler) seal(key *string) (string, error) {
	if *key == "" {
		*key, _ = newAPIKey()
	}
	return h.Sealer.Seal([]byte(*key), "")
}
