package application

import (
	"crypto/rand"
	"fmt"
	"math/big"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SMS codes and card numbers (and the phones attach's caps count) are kept only as keyed hashes
// (ports.Sealer.Blind), so a stolen database reveals none. A code is hashed under the current key alone: a key rotation voids
// the codes sent in the minutes before it. A card is found by its hash under any key.

func otpHash(s ports.Sealer, cardID uuid.UUID, code string) []byte {
	return s.Blind("otp", cardID.String(), code)[0]
}

func panHashes(s ports.Sealer, pan domain.PAN) [][]byte { return s.Blind("pan", pan.Digits()) }

// phoneHash is the phone's hash under the current key, by which attach's daily cap counts it.
func phoneHash(s ports.Sealer, phone domain.Phone) []byte { return s.Blind("phone", phone.String())[0] }

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
