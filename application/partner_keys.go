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
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	key = keyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, HashAPIKey(key)
}

// HashAPIKey returns the stored form of an API key.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}
