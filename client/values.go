package client

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Version is this package's version, the client/vX.Y.Z tag it is released under; it is in the
// User-Agent of every call.
const Version = "0.2.0"

// UUID is an id: github.com/google/uuid's type, so uuid.New() and uuid.Parse make one.
type UUID = uuid.UUID

// Date is a calendar date without a time of day or a zone, as the API's dates (yyyy-MM-dd:
// a birth date, a document's dates) are. The zero Date is no date, and travels as "".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// NewDate is the date year-month-day; out-of-range values are normalized as time.Date does
// (February 30 is March 2 or 1).
func NewDate(year int, month time.Month, day int) Date {
	return DateOf(time.Date(year, month, day, 0, 0, 0, 0, time.UTC))
}

// DateOf is the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate reads a yyyy-MM-dd date ("1990-05-17").
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("tiyin client: date %q: want yyyy-MM-dd", s)
	}
	return DateOf(t), nil
}

// String renders d as yyyy-MM-dd, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// IsZero reports whether d is the zero Date, no date.
func (d Date) IsZero() bool { return d == Date{} }

// In is midnight at the start of d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// MarshalText renders d as yyyy-MM-dd, for JSON and other encodings.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a yyyy-MM-dd date; "" is the zero Date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Percent is an annual rate in percent, exact: tiyin's rates have at most two decimals (28,
// 28.5, 83.06), and a Percent holds them as hundredths, so no digit is lost to binary floating
// point on the way in or out. A JSON number reads into it exactly ("28.0" is 28.00); a number
// with a third non-zero decimal is refused rather than rounded. The zero Percent is 0.00.
type Percent struct{ hundredths int64 }

// PercentFromHundredths is h hundredths of a percent: 2800 is 28%.
func PercentFromHundredths(h int64) Percent { return Percent{h} }

// decimal is a JSON number's text, its exponent kept small.
var decimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]{1,3})?$`)

// ParsePercent reads a decimal as a JSON number writes it ("28", "28.0", "83.06", "-1.5",
// "2.8e1") exactly.
func ParsePercent(s string) (Percent, error) {
	if !decimal.MatchString(s) {
		return Percent{}, fmt.Errorf("tiyin client: percent %q: not a decimal number", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Percent{}, fmt.Errorf("tiyin client: percent %q: not a decimal number", s)
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() || !r.Num().IsInt64() {
		return Percent{}, fmt.Errorf("tiyin client: percent %q: more than two decimals", s)
	}
	return Percent{r.Num().Int64()}, nil
}

// MustParsePercent is ParsePercent for a literal known to be right; it panics on a wrong one.
func MustParsePercent(s string) Percent {
	p, err := ParsePercent(s)
	if err != nil {
		panic(err)
	}
	return p
}

// Hundredths is the rate in hundredths of a percent: 2800 for 28%.
func (p Percent) Hundredths() int64 { return p.hundredths }

// String renders the rate with two decimals: "28.00", "83.06".
func (p Percent) String() string {
	h, sign := p.hundredths, ""
	if h < 0 {
		h, sign = -h, "-"
	}
	return fmt.Sprintf("%s%d.%02d", sign, h/100, h%100)
}

// MarshalJSON renders the rate as a JSON number with two decimals (28.00).
func (p Percent) MarshalJSON() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalJSON reads a JSON number exactly (a string holding one is taken too).
func (p *Percent) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	v, err := ParsePercent(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalText renders the rate with two decimals, for encodings other than JSON.
func (p Percent) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a decimal exactly.
func (p *Percent) UnmarshalText(b []byte) error {
	v, err := ParsePercent(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
