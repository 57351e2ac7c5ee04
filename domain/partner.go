package domain

import (
	"crypto/subtle"
	"errors"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Partner is an application allowed to call tiyin. It authenticates with an API key that tiyin
// keeps only as a SHA-256 hash.
type Partner struct {
	ID      uuid.UUID
	Name    string
	KeyHash []byte
	// PreviousKeyHash is the key a rotation replaced, which keeps working until
	// PreviousKeyUntil, so the partner can move its systems to the new key without a gap; nil
	// when none.
	PreviousKeyHash  []byte
	PreviousKeyUntil time.Time
	Disabled         bool
	CreatedAt        time.Time
	// WebhookURL is where the partner's events go; empty when it has none.
	WebhookURL string
	// WebhookSecret signs the events. It is kept sealed with the data key and opened only to
	// sign a delivery.
	WebhookSecret string
	// PreviousWebhookSecret (sealed) is the secret a new one replaced; events are signed with
	// both until PreviousWebhookSecretUntil, so the partner moves to the new secret without
	// refusing a delivery. Empty when none.
	PreviousWebhookSecret      string
	PreviousWebhookSecretUntil time.Time
	// SandboxKey is the sandbox partner's API key, sealed with the data key so that every start
	// of the sandbox prints the same key (sandbox only; empty for every other partner, whose
	// key is kept only as KeyHash).
	SandboxKey string
}

// SetWebhook sends the partner's events to url, signed with sealedSecret from now on. The
// secret it replaces (at the same or another URL) signs beside it for overlap (0: not at
// all); removing the webhook (url empty) drops both.
func (p *Partner) SetWebhook(url, sealedSecret string, now time.Time, overlap time.Duration) error {
	if overlap < 0 || overlap > MaxKeyOverlap {
		return ErrKeyOverlap
	}
	p.PreviousWebhookSecret, p.PreviousWebhookSecretUntil = "", time.Time{}
	if url != "" && p.WebhookSecret != "" && overlap > 0 {
		p.PreviousWebhookSecret, p.PreviousWebhookSecretUntil = p.WebhookSecret, now.Add(overlap)
	}
	p.WebhookURL, p.WebhookSecret = url, sealedSecret
	return nil
}

// DefaultKeyOverlap is how long a rotated key (or webhook secret) keeps working beside the
// new one unless the rotation says otherwise; MaxKeyOverlap is the longest it may.
const (
	DefaultKeyOverlap = 24 * time.Hour
	MaxKeyOverlap     = 7 * 24 * time.Hour
)

// ErrKeyOverlap refuses an overlap of an old key or secret that is negative or longer than
// MaxKeyOverlap.
var ErrKeyOverlap = errors.New("the old key's or secret's overlap is from 0 (it stops at once) to 7 days")

// RotateKey makes hash the partner's key at now; the key it replaces keeps working for
// overlap (0: it stops at once), and one replaced before stops now.
func (p *Partner) RotateKey(hash []byte, now time.Time, overlap time.Duration) error {
	if overlap < 0 || overlap > MaxKeyOverlap {
		return ErrKeyOverlap
	}
	p.PreviousKeyHash, p.PreviousKeyUntil = nil, time.Time{}
	if overlap > 0 {
		p.PreviousKeyHash, p.PreviousKeyUntil = p.KeyHash, now.Add(overlap)
	}
	p.KeyHash = hash
	return nil
}

// KeyWorksUntil is until when the key of hash is the partner's at now: forever (the zero
// time) for its key, PreviousKeyUntil for the key a rotation replaced while that lasts; false
// for any other key. The comparisons take the same time whatever the hashes.
func (p Partner) KeyWorksUntil(hash []byte, now time.Time) (time.Time, bool) {
	current := subtle.ConstantTimeCompare(p.KeyHash, hash) == 1
	previous := len(p.PreviousKeyHash) > 0 && subtle.ConstantTimeCompare(p.PreviousKeyHash, hash) == 1
	switch {
	case current:
		return time.Time{}, true
	case previous && now.Before(p.PreviousKeyUntil):
		return p.PreviousKeyUntil, true
	}
	return time.Time{}, false
}

// ErrWebhookURL means a webhook address is not an absolute http(s) URL.
var ErrWebhookURL = errors.New("webhook URL must be an absolute http:// or https:// URL of at most 2000 characters, without credentials or fragment")

// ParseWebhookURL accepts an absolute http or https URL with a host, no user info and no
// fragment.
func ParseWebhookURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || len(s) > 2000 || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.Fragment != "" {
		return "", ErrWebhookURL
	}
	return u.String(), nil
}

// ParsePartnerName accepts 1–100 printable characters without surrounding spaces.
func ParsePartnerName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 100 || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return "", ErrPartnerName
	}
	return s, nil
}

// ErrPartnerName refuses a partner name that is empty, too long or not printable.
var ErrPartnerName = errors.New("partner name must be 1 to 100 printable characters")

// SandboxPartnerName is the partner seeded in sandbox mode.
const SandboxPartnerName = "sandbox"
