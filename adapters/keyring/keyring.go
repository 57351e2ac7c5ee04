// Package keyring implements ports.Sealer over the data keys: the current TIYIN_DATA_KEY seals
// and blinds, retired keys (TIYIN_DATA_KEY_RETIRED) still open and look up what they sealed
// until `tiyin reseal` has moved every value to the current key.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// A sealed value is "v1:<key id>:<base64 of nonce and AES-256-GCM ciphertext>"; the key id is
// the start of the SHA-256 of the sealing key, which is derived from the data key.
const prefix = "v1"

// ErrUnknownKey means a value was sealed under a key the keyring does not hold.
var ErrUnknownKey = errors.New("sealed under a data key that is neither current nor retired")

type key struct {
	data []byte // the data key: blinds
	gcm  cipher.AEAD
	id   string
}

// Keyring holds the current data key and the retired ones.
type Keyring struct {
	keys []key // current first
	byID map[string]key
}

// New returns a keyring sealing under current; retired keys only open and blind.
func New(current []byte, retired ...[]byte) (*Keyring, error) {
	if len(current) == 0 {
		return nil, errors.New("no data key")
	}
	k := &Keyring{byID: map[string]key{}}
	for _, d := range append([][]byte{current}, retired...) {
		sk := hash(d, "seal")
		sum := sha256.Sum256(sk)
		block, err := aes.NewCipher(sk)
		if err != nil {
			return nil, err
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		kk := key{data: d, gcm: gcm, id: hex.EncodeToString(sum[:4])}
		if _, dup := k.byID[kk.id]; dup {
			continue
		}
		k.keys = append(k.keys, kk)
		k.byID[kk.id] = kk
	}
	return k, nil
}

// KeyID implements ports.Sealer.
func (k *Keyring) KeyID() string { return k.keys[0].id }

// Seal implements ports.Sealer.
func (k *Keyring) Seal(plain []byte, context string) (string, error) {
	cur := k.keys[0]
	nonce := make([]byte, cur.gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := cur.gcm.Seal(nonce, nonce, plain, aad(cur.id, context))
	return prefix + ":" + cur.id + ":" + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open implements ports.Sealer.
func (k *Keyring) Open(sealed, context string) ([]byte, error) {
	parts := strings.SplitN(sealed, ":", 3)
	if len(parts) != 3 || parts[0] != prefix {
		return nil, errors.New("not a sealed value")
	}
	kk, ok := k.byID[parts[1]]
	if !ok {
		return nil, fmt.Errorf("%w (key id %s; current key id %s)", ErrUnknownKey, parts[1], k.KeyID())
	}
	raw, err := base64.RawStdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) < kk.gcm.NonceSize() {
		return nil, errors.New("sealed value is corrupt")
	}
	n := kk.gcm.NonceSize()
	plain, err := kk.gcm.Open(nil, raw[:n], raw[n:], aad(kk.id, context))
	if err != nil {
		return nil, errors.New("sealed value does not open: corrupt, tampered or moved from another row")
	}
	return plain, nil
}

// KeyOf returns the id of the key a sealed value names, "" when it is not sealed.
func KeyOf(sealed string) string {
	parts := strings.SplitN(sealed, ":", 3)
	if len(parts) != 3 || parts[0] != prefix {
		return ""
	}
	return parts[1]
}

// Blind implements ports.Sealer.
func (k *Keyring) Blind(label string, parts ...string) [][]byte {
	out := make([][]byte, len(k.keys))
	for i, kk := range k.keys {
		out[i] = hash(kk.data, label, parts...)
	}
	return out
}

// aad binds a sealed value to its key id and its context; an empty context gives the key id
// alone, as the first sealed webhook secrets were made.
func aad(id, context string) []byte {
	if context == "" {
		return []byte(id)
	}
	return []byte(id + "\x00" + context)
}

// hash is HMAC-SHA256 under the data key over a label and parts.
func hash(key []byte, label string, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}
