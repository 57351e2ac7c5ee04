package store

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// Personal data at rest: clientData, phones, card holders' names and stored answers are kept
// sealed (ports.Sealer, AES-256-GCM under the data key, bound to their table, column and row),
// and a card's PINFL only as a blind index (its keyed hash, hex), by which the client's cards
// are still found.

var errNoSealer = errors.New("store: no sealer configured (Config.Sealer)")

// binding is what a sealed column's value is bound to: its table, column and row, so a value
// copied to another row or column does not open. clientData keeps the binding it had before
// other columns were sealed: its table and row.
func binding(table, column string, id uuid.UUID) string {
	if column == "client_data" {
		return table + ":" + id.String()
	}
	return table + "." + column + ":" + id.String()
}

// sealText seals a plain JSON column value (clientData) for its row.
func (db *DB) sealText(plain, table string, id uuid.UUID) (string, error) {
	return db.seal(plain, binding(table, "client_data", id))
}

// openText opens what sealText sealed.
func (db *DB) openText(stored, table string, id uuid.UUID) (string, error) {
	return db.open(stored, binding(table, "client_data", id))
}

// sealField seals another personal column (a phone, a card holder's name) for its row.
func (db *DB) sealField(plain, table, column string, id uuid.UUID) (string, error) {
	if plain == "" {
		return "", nil
	}
	return db.seal(plain, binding(table, column, id))
}

// openField opens what sealField sealed.
func (db *DB) openField(stored, table, column string, id uuid.UUID) (string, error) {
	return db.open(stored, binding(table, column, id))
}

func (db *DB) seal(plain, binding string) (string, error) {
	if db.Sealer == nil {
		return "", errNoSealer
	}
	return db.Sealer.Seal([]byte(plain), binding)
}

// open opens a sealed value. A value stored before its column was sealed is plain (sealed
// ones start "v1:"), and is read as it is until `tiyin reseal` seals it.
func (db *DB) open(stored, binding string) (string, error) {
	if stored == "" || !strings.HasPrefix(stored, "v1:") {
		return stored, nil
	}
	if db.Sealer == nil {
		return "", errNoSealer
	}
	plain, err := db.Sealer.Open(stored, binding)
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// PhoneIndexes are a phone's blind indexes (hex), the current data key's first, by which the
// console finds a client's applications; none without a sealer.
func (db *DB) PhoneIndexes(phone string) []string {
	var out []string
	if db.Sealer != nil {
		for _, b := range db.Sealer.Blind("phone", phone) {
			out = append(out, hex.EncodeToString(b))
		}
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	return out
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

// pinflIndex is an application's PINFL as its blind index under the current key; "" without
// a sealer.
func (db *DB) pinflIndex(pinfl string) string {
	if db.Sealer == nil || pinfl == "" {
		return ""
	}
	return hex.EncodeToString(db.Sealer.Blind("pinfl", pinfl)[0])
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
