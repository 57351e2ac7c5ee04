package domain

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PAN is a full payment card number: 16 digits. It is never logged or returned; Masked is the
// only form that leaves tiyin.
type PAN struct{ digits string }

// ParsePAN accepts exactly 16 digits, no spaces. There is no Luhn check: the sandbox's test
// numbers do not follow it (DESIGN.md §8.3).
func ParsePAN(s string) (PAN, error) {
	if len(s) != 16 || !isDigits(s) {
		return PAN{}, errors.New("must be 16 digits")
	}
	return PAN{digits: s}, nil
}

// Digits returns the full number, for gateways only.
func (p PAN) Digits() string { return p.digits }

// Masked returns the first six and last four digits: 860012******3456.
func (p PAN) Masked() string {
	if len(p.digits) != 16 {
		return ""
	}
	return p.digits[:6] + strings.Repeat("*", 6) + p.digits[12:]
}

// String is the masked form, so a PAN printed by mistake does not leak.
func (p PAN) String() string { return p.Masked() }

// Network is a card processing network.
type Network struct{ s string }

// The two networks of Uzbekistan.
var (
	NetworkUzcard = Network{"UZCARD"}
	NetworkHumo   = Network{"HUMO"}
)

// Networks lists the processing networks.
func Networks() []Network { return []Network{NetworkUzcard, NetworkHumo} }

// ParseNetwork accepts UZCARD or HUMO.
func ParseNetwork(s string) (Network, error) {
	n, err := parseEnum(s, Networks())
	if err != nil {
		return Network{}, errors.New("must be one of UZCARD, HUMO")
	}
	return n, nil
}

// String returns the name.
func (n Network) String() string { return n.s }

// IsZero reports whether the network is unset.
func (n Network) IsZero() bool { return n.s == "" }

// ParseCardHolder accepts the name on a card: 1 to 100 Latin or Cyrillic letters, spaces,
// hyphens, apostrophes and dots, as networks emboss them; runs of spaces fold into one.
func ParseCardHolder(s string) (string, error) {
	s = collapse(s)
	if s == "" || utf8.RuneCountInString(s) > 100 {
		return "", errors.New("must be 1 to 100 characters")
	}
	for _, r := range s {
		letter := unicode.IsLetter(r) && (unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Cyrillic, r))
		if !letter && r != ' ' && r != '-' && r != '\'' && r != '.' {
			return "", errors.New("must contain only Latin or Cyrillic letters, spaces, hyphens, apostrophes and dots")
		}
	}
	return s, nil
}
