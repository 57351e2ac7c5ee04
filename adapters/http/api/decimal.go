package api

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Decimal is a JSON number kept as its literal text, so that a percent such as 28.05 is read
// exactly (no float rounding) and a string is refused as the wrong type.
type Decimal string

// UnmarshalJSON accepts a JSON number literal only. Anything else is reported as a
// json.UnmarshalTypeError, which the decoder completes with the field's path.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[Decimal]()}
	}
	*d = Decimal(b)
	return nil
}

// MarshalJSON writes the literal back.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("0"), nil
	}
	return []byte(d), nil
}
