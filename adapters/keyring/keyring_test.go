package keyring_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/keyring"
)

var (
	keyA = bytes.Repeat([]byte{0xa1}, 32)
	keyB = bytes.Repeat([]byte{0xb2}, 32)
)

func ring(t *testing.T, current []byte, retired ...[]byte) *keyring.Keyring {
	t.Helper()
	k, err := keyring.New(current, retired...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	a := ring(t, keyA)
	plain := []byte(`{"pinfl":"31234567890123","lastName":"O'RINBOYEV"}`)
	sealed, err := a.Seal(plain, "applications:1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "3123456789") || strings.Contains(sealed, "RINBOYEV") || !strings.HasPrefix(sealed, "v1:"+a.KeyID()+":") {
		t.Fatalf("sealed value %q shows its content or lacks its key id", sealed)
	}
	again, _ := a.Seal(plain, "applications:1")
	if again == sealed {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
	// Flip one bit of the ciphertext itself (flipping a base64 character might make it invalid
	// base64, which is another case).
	i := strings.LastIndex(sealed, ":")
	raw, _ := base64.RawStdEncoding.DecodeString(sealed[i+1:])
	raw[len(raw)-3] ^= 1
	tamper := sealed[:i+1] + base64.RawStdEncoding.EncodeToString(raw)
	tests := []struct {
		name    string
		k       *keyring.Keyring
		sealed  string
		context string
		want    error // nil: opens to plain
		wantMsg string
	}{
		{"same key and row", a, sealed, "applications:1", nil, ""},
		{"rotated: the retired key still opens", ring(t, keyB, keyA), sealed, "applications:1", nil, ""},
		{"moved to another row", a, sealed, "applications:2", errors.New(""), "moved from another row"},
		{"tampered", a, tamper, "applications:1", errors.New(""), "tampered"},
		{"key dropped", ring(t, keyB), sealed, "applications:1", keyring.ErrUnknownKey, ""},
		{"not sealed", a, `{"pinfl":"1"}`, "applications:1", errors.New(""), "not a sealed value"},
		{"corrupt base64", a, "v1:" + a.KeyID() + ":%%%", "applications:1", errors.New(""), "corrupt"},
		{"too short", a, "v1:" + a.KeyID() + ":AA", "applications:1", errors.New(""), "corrupt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.k.Open(tt.sealed, tt.context)
			switch {
			case tt.want == nil && (err != nil || !bytes.Equal(got, plain)):
				t.Fatalf("got %q, %v", got, err)
			case tt.want != nil && err == nil:
				t.Fatalf("opened: %q", got)
			case tt.want != nil && tt.wantMsg == "" && !errors.Is(err, tt.want):
				t.Fatalf("got %v, want %v", err, tt.want)
			case tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg):
				t.Fatalf("got %v, want it to say %q", err, tt.wantMsg)
			}
		})
	}
}

func TestRotationSealsUnderTheNewKeyAndBlindsUnderBoth(t *testing.T) {
	t.Parallel()
	a, ba := ring(t, keyA), ring(t, keyB, keyA)
	sealed, _ := ba.Seal([]byte("x"), "")
	if keyring.KeyOf(sealed) != ba.KeyID() || ba.KeyID() == a.KeyID() {
		t.Fatalf("sealed under %s, current %s, old %s", keyring.KeyOf(sealed), ba.KeyID(), a.KeyID())
	}
	old := a.Blind("pan", "8600123456789012")
	both := ba.Blind("pan", "8600123456789012")
	if len(old) != 1 || len(both) != 2 || !bytes.Equal(both[1], old[0]) || bytes.Equal(both[0], old[0]) {
		t.Fatal("blind indexes: the new key's first, the retired key's after it")
	}
	if bytes.Equal(a.Blind("pan", "86001234", "56789012")[0], a.Blind("pan", "8600123456789012")[0]) {
		t.Fatal("parts are not separated")
	}
	if keyring.KeyOf("plain") != "" {
		t.Fatal("KeyOf a plain value")
	}
	if _, err := keyring.New(nil); err == nil {
		t.Fatal("a keyring without a key")
	}
}
