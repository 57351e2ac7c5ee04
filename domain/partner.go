package domain

import (
	"errors"
	"strings"
	"time"
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
}

// ParsePartnerName accepts 1–100 printable characters without surrounding spaces.
func ParsePartnerName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 100 {
		return "", errors.New("partner name must be 1 to 100 characters")
	}
	return s, nil
}

// SandboxPartnerName is the partner seeded in sandbox mode.
const SandboxPartnerName = "sandbox"
