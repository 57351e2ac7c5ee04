package domain

import (
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
	ID        uuid.UUID
	Name      string
	KeyHash   []byte
	Disabled  bool
	CreatedAt time.Time
	// WebhookURL is where the partner's events go; empty when it has none.
	WebhookURL string
	// WebhookSecret signs the events. It is kept sealed with the data key and opened only to
	// sign a delivery.
	WebhookSecret string
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
		return "", errors.New("partner name must be 1 to 100 printable characters")
	}
	return s, nil
}

// SandboxPartnerName is the partner seeded in sandbox mode.
const SandboxPartnerName = "sandbox"
