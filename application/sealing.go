package application

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// A sealed secret is "v1:<key id>:<base64 of nonce and AES-256-GCM ciphertext>". The key is
// derived from the data key (TIYIN_DATA_KEY); its id, the start of its SHA-256, says which data
// key sealed a value, so that keys can be rotated.
const sealPrefix = "v1"

// ErrSealedWithOtherKey means a sealed value was sealed under another data key.
var ErrSealedWithOtherKey = errors.New("sealed under another data key")

func sealingKey(dataKey []byte) (key []byte, id string) {
	key = keyedHash(dataKey, "seal")
	sum := sha256.Sum256(key)
	return key, hex.EncodeToString(sum[:4])
}

// seal encrypts plain under the data key.
func seal(dataKey, plain []byte) (string, error) {
	key, id := sealingKey(dataKey)
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := gcm.Seal(nonce, nonce, plain, []byte(id))
	return sealPrefix + ":" + id + ":" + base64.RawStdEncoding.EncodeToString(out), nil
}

// unseal decrypts what seal made under the same data key.
func unseal(dataKey []byte, sealed string) ([]byte, error) {
	parts := strings.SplitN(sealed, ":", 3)
	if len(parts) != 3 || parts[0] != sealPrefix {
		return nil, errors.New("not a sealed value")
	}
	key, id := sealingKey(dataKey)
	if parts[1] != id {
		return nil, fmt.Errorf("%w (key id %s, current key id %s)", ErrSealedWithOtherKey, parts[1], id)
	}
	raw, err := base64.RawStdEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, errors.New("sealed value is corrupt")
	}
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if len(raw) < gcm.NonceSize() {
		return nil, errors.New("sealed value is corrupt")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(id))
	if err != nil {
		return nil, errors.New("sealed value does not open: corrupt or tampered")
	}
	return plain, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
