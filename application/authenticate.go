package application

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/time/rate"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Authentication errors.
var (
	// ErrUnauthenticated means the key is missing or unknown.
	ErrUnauthenticated = errors.New("missing or invalid API key")
	// ErrPartnerDisabled means the key belongs to a disabled partner.
	ErrPartnerDisabled = errors.New("partner is disabled")
	// ErrTooManyBadKeys means the caller's address sent too many unknown keys lately.
	ErrTooManyBadKeys = errors.New("too many requests with an unknown API key from this address; retry later")
)

// authCacheTTL is how long a key's partner is remembered; a disabled or rotated key stops
// working within this time on every node. An unknown key is remembered as long, so a key
// created meanwhile may wait that long too.
const authCacheTTL = 5 * time.Second

// Unknown keys: at most badKeysPerSecond per client address (bursts of twice that), and up to
// unknownKeys of them remembered, so a flood of random keys costs neither the database nor
// unbounded memory.
const (
	badKeysPerSecond = 10
	unknownKeys      = 10_000
	trackedAddresses = 10_000
)

// AuthenticateHandler finds the partner of an API key. Known keys are cached briefly so a busy
// partner costs one lookup every few seconds, not one per request; unknown keys are cached in
// a bounded cache, and each costs its sender's address a token of its bad-key allowance, past
// which unknown keys are answered "too many" (a good key never is).
type AuthenticateHandler struct {
	partners ports.PartnerRepository
	cache    sync.Map // string(hash) → authEntry
	unknown  *expirable.LRU[string, struct{}]
	badKeys  *expirable.LRU[string, *rate.Limiter] // client address → its allowance
}

// NewAuthenticateHandler returns the handler on the ports it uses.
func NewAuthenticateHandler(partners ports.PartnerRepository) *AuthenticateHandler {
	return &AuthenticateHandler{partners: partners,
		unknown: expirable.NewLRU[string, struct{}](unknownKeys, nil, authCacheTTL),
		badKeys: expirable.NewLRU[string, *rate.Limiter](trackedAddresses, nil, time.Minute)}
}

type authEntry struct {
	partner domain.Partner
	err     error
	until   time.Time
}

// Handle returns the enabled partner whose key this is; addr is the caller's network address.
func (h *AuthenticateHandler) Handle(ctx context.Context, key, addr string) (domain.Partner, error) {
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
	// A key is looked up before its sender's bad-key allowance is consulted: behind a proxy all
	// partners share one address, and a flood of bad keys through it must never refuse a
	// good key. An unknown key costs one indexed lookup, then none for authCacheTTL.
	if h.unknown.Contains(string(hash)) {
		return domain.Partner{}, h.badKey(addr)
	}
	p, err := h.partners.ByKeyHash(ctx, hash)
	until := now.Add(authCacheTTL)
	switch {
	case errors.Is(err, domain.ErrPartnerNotFound):
		err = ErrUnauthenticated
	case err != nil:
		return domain.Partner{}, err
	default:
		// A rotated key works until its overlap ends, and is remembered no longer.
		if ends, ok := p.KeyWorksUntil(hash, now); !ok {
			err = ErrUnauthenticated
		} else if !ends.IsZero() && ends.Before(until) {
			until = ends
		}
		if err == nil && p.Disabled {
			err = ErrPartnerDisabled
		}
	}
	if errors.Is(err, ErrUnauthenticated) {
		h.unknown.Add(string(hash), struct{}{})
		return domain.Partner{}, h.badKey(addr)
	}
	if err != nil {
		p = domain.Partner{}
	}
	h.cache.Store(string(hash), authEntry{partner: p, err: err, until: until})
	return p, err
}

// badKey counts an unknown key against its sender's address: past its allowance the answer
// is ErrTooManyBadKeys (code 7), which tells a scanner to slow down; a good key from the same
// address is still served.
func (h *AuthenticateHandler) badKey(addr string) error {
	allowance, ok := h.badKeys.Get(addr)
	if !ok {
		allowance = rate.NewLimiter(badKeysPerSecond, 2*badKeysPerSecond)
		h.badKeys.Add(addr, allowance)
	}
	if !allowance.Allow() {
		return ErrTooManyBadKeys
	}
	return ErrUnauthenticated
}
