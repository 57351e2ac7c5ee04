package application

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// keyedHash is HMAC-SHA256 under the data key, over a label and parts, so a stolen database
// reveals neither SMS codes nor card numbers.
func keyedHash(key []byte, label string, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

func otpHash(key []byte, cardID uuid.UUID, code string) []byte {
	return keyedHash(key, "otp", cardID.String(), code)
}

func panHash(key []byte, pan domain.PAN) []byte { return keyedHash(key, "pan", pan.Digits()) }

// newOTP makes a 6-digit SMS code from crypto/rand, or the sandbox's fixed code.
func newOTP(fixed string) (string, error) {
	if fixed != "" {
		return fixed, nil
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}
