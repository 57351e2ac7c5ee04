package application

import (
	"crypto/sha256"

	"github.com/tiyin/tiyin/ports"
)

// A request's fingerprint is a keyed hash, never a plain one: a plain hash of a PAN or an SMS
// code is reversed by trying every value (DESIGN §5). Its first byte says how the rest was
// made, so the forms never collide.
const (
	// fingerprintKeyed is an HMAC of the endpoint and the canonical params under a key derived
	// from the data key (ports.Sealer.Blind).
	fingerprintKeyed = 1
	// fingerprintRekeyed is an HMAC, under the same key, of the plain SHA-256 fingerprint that
	// versions before keyed fingerprints stored; RekeyFingerprint turns a stored one into it, so
	// a retry of a request made before the upgrade still matches its record.
	fingerprintRekeyed = 2
	rekeyLabel         = "idempotency-rekeyed"
)

// Fingerprints are the fingerprints of an endpoint and its canonical params: the current data
// key's first (the one stored), then the retired keys', each also in the re-keyed form.
func Fingerprints(s ports.Sealer, endpoint string, canonical []byte) [][]byte {
	keyed := s.Blind("idempotency", endpoint, string(canonical))
	plain := sha256.New()
	plain.Write([]byte(endpoint))
	plain.Write([]byte{0})
	plain.Write(canonical)
	rekeyed := s.Blind(rekeyLabel, string(plain.Sum(nil)))
	out := make([][]byte, 0, 2*len(keyed))
	for _, k := range keyed {
		out = append(out, append([]byte{fingerprintKeyed}, k...))
	}
	for _, k := range rekeyed {
		out = append(out, append([]byte{fingerprintRekeyed}, k...))
	}
	return out
}

// RekeyFingerprint is a plain SHA-256 fingerprint, as versions before keyed fingerprints stored
// it, re-keyed under the current data key.
func RekeyFingerprint(s ports.Sealer) func(plain []byte) []byte {
	return func(plain []byte) []byte {
		return append([]byte{fingerprintRekeyed}, s.Blind(rekeyLabel, string(plain))[0]...)
	}
}
