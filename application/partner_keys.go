package application

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// keyPrefix marks tiyin API keys, so a leaked one is easy to recognise in a secret scanner.
const keyPrefix = "tiyin_"

// newAPIKey returns a fresh key of 32 random bytes and its SHA-256 hash, the only form stored.
func newAPIKey() (key string, hash []byte) {
	key = keyPrefix + NewToken(32)
	return key, HashAPIKey(key)
}

// NewToken is n random bytes as URL-safe text: API keys and console session tokens.
func NewToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashAPIKey returns the stored form of an API key, and of a console session token: their
// SHA-256 (both are long random secrets, so no salt or stretching is needed).
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}
