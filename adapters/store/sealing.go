package store

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// Personal data at rest: clientData is kept sealed (ports.Sealer, AES-256-GCM under the data
// key, bound to its table and row), and a card's PINFL only as a blind index (its keyed hash,
// hex), by which the client's cards are still found.

var errNoSealer = errors.New("store: no sealer configured (Config.Sealer)")

// sealText seals a plain JSON column value for its row.
func (db *DB) sealText(plain, table string, id uuid.UUID) (string, error) {
	if db.Sealer == nil {
		return "", errNoSealer
	}
	return db.Sealer.Seal([]byte(plain), table+":"+id.String())
}

// openText opens what sealText sealed. A row written before sealing existed holds plain JSON,
// which is read as it is until `tiyin reseal` seals it.
func (db *DB) openText(stored, table string, id uuid.UUID) (string, error) {
	if strings.HasPrefix(stored, "{") {
		return stored, nil
	}
	if db.Sealer == nil {
		return "", errNoSealer
	}
	plain, err := db.Sealer.Open(stored, table+":"+id.String())
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// blindPINFLs are the values a card's pinfl column may hold for the client: its blind index
// under each data key, and the PINFL itself for a row written before blinding existed.
func (db *DB) blindPINFLs(pinfl string) []string {
	out := []string{pinfl}
	if db.Sealer != nil {
		for _, b := range db.Sealer.Blind("pinfl", pinfl) {
			out = append(out, hex.EncodeToString(b))
		}
	}
	return out
}

// blindPINFL is the pinfl column of a card: a PINFL is stored as its blind index under the
// current key; a value read back from the column is already one and is kept.
func (db *DB) blindPINFL(v string) (string, error) {
	if !isPINFL(v) {
		return v, nil
	}
	if db.Sealer == nil {
		return "", errNoSealer
	}
	return hex.EncodeToString(db.Sealer.Blind("pinfl", v)[0]), nil
}

func isPINFL(v string) bool {
	if len(v) != 14 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
