package application

import (
	"context"
	"crypto/subtle"
	"errors"
	"sync"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Authentication errors.
var (
	// ErrUnauthenticated means the key is missing or unknown.
	ErrUnauthenticated = errors.New("missing or invalid API key")
	// ErrPartnerDisabled means the key belongs to a disabled partner.
	ErrPartnerDisabled = errors.New("partner is disabled")
)

// authCacheTTL is how long a key's partner is remembered; a disabled or rotated key stops
// working within this time on every node.
const authCacheTTL = 5 * time.Second

// AuthenticateHandler finds the partner of an API key. Known keys are cached briefly so a busy
// partner costs one lookup every few seconds, not one per request; unknown keys are not cached,
// so a flood of random keys cannot grow the cache.
type AuthenticateHandler struct {
	partners ports.PartnerRepository
	cache    sync.Map // string(hash) → authEntry
}

// NewAuthenticateHandler returns the handler on the ports it uses.
func NewAuthenticateHandler(partners ports.PartnerRepository) *AuthenticateHandler {
	return &AuthenticateHandler{partners: partners}
}

type authEntry struct {
	partner domain.Partner
	err     error
	until   time.Time
}

// Handle returns the enabled partner whose key this is.
func (h *AuthenticateHandler) Handle(ctx context.Context, key string) (domain.Partner, error) {
	if key == "" {
		return domain.Partner{}, ErrUnauthenticated
	}
	hash := HashAPIKey(key)
	now := time.Now()
	if v, ok := h.cache.Load(string(hash)); ok {
		if e := v.(authEntry); now.Before(e.until) {
			return e.partner, e.err
		}
	}
	p, err := h.partners.ByKeyHash(ctx, hash)
	switch {
	case errors.Is(err, domain.ErrPartnerNotFound):
		err = ErrUnauthenticated
	case err != nil:
		return domain.Partner{}, err
	case subtle.ConstantTimeCompare(p.KeyHash, hash) != 1:
		err = ErrUnauthenticated
	case p.Disabled:
		err = ErrPartnerDisabled
	}
	if errors.Is(err, ErrUnauthenticated) {
		return domain.Partner{}, err
	}
	if err != nil {
		p = domain.Partner{}
	}
	h.cache.Store(string(hash), authEntry{partner: p, err: err, until: now.Add(authCacheTTL)})
	return p, err
}
