package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Phone is a mobile number in Uzbekistan: 12 digits starting with 998.
type Phone struct{ digits string }

// ParsePhone accepts exactly 12 digits starting with 998, with no plus sign or spaces.
func ParsePhone(s string) (Phone, error) {
	if len(s) != 12 || !isDigits(s) || !strings.HasPrefix(s, "998") {
		return Phone{}, errors.New("must be 12 digits starting with 998")
	}
	return Phone{digits: s}, nil
}

// String returns the 12 digits.
func (p Phone) String() string { return p.digits }

// Masked keeps the country code and the last two digits, as operators see a phone.
func (p Phone) Masked() string {
	if len(p.digits) < 6 {
		return strings.Repeat("•", len(p.digits))
	}
	return p.digits[:3] + strings.Repeat("•", len(p.digits)-5) + p.digits[len(p.digits)-2:]
}

// IsZero reports whether the phone is unset.
func (p Phone) IsZero() bool { return p.digits == "" }

// Amount is a positive sum of money in tiyin (1/100 of a so'm).
type Amount int64

// ParseAmount accepts a positive whole number of tiyin.
func ParseAmount(v int64) (Amount, error) {
	if v <= 0 {
		return 0, errors.New("must be a positive whole number of tiyin")
	}
	return Amount(v), nil
}

// Tiyin returns the amount as an integer.
func (a Amount) Tiyin() int64 { return int64(a) }

// Percent is an annual rate with at most two decimals, held in hundredths of a percent so that
// comparisons and money arithmetic stay exact.
type Percent struct{ hundredths int64 }

// MaxPercent is the highest rate the interface accepts: 99.99.
const MaxPercent = 9999

// ParsePercent reads a decimal literal such as "28", "28.5" or "28.05" (JSON number text) and
// accepts 0 to 99.99 with at most two decimals.
func ParsePercent(text string) (Percent, error) {
	bad := errors.New("must be a number from 0 to 99.99 with at most two decimals")
	intPart, frac, hasFrac := strings.Cut(text, ".")
	if intPart == "" || len(intPart) > 2 || !isDigits(intPart) {
		return Percent{}, bad
	}
	if hasFrac && (frac == "" || !isDigits(frac)) {
		return Percent{}, bad
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 2 {
		return Percent{}, bad
	}
	frac += strings.Repeat("0", 2-len(frac))
	whole, _ := strconv.ParseInt(intPart, 10, 64)
	cents, _ := strconv.ParseInt(frac, 10, 64)
	return PercentFromHundredths(whole*100 + cents)
}

// PercentFromHundredths builds a percent from hundredths (2800 = 28%).
func PercentFromHundredths(h int64) (Percent, error) {
	if h < 0 || h > MaxPercent {
		return Percent{}, errors.New("must be a number from 0 to 99.99 with at most two decimals")
	}
	return Percent{hundredths: h}, nil
}

// Hundredths returns the rate in hundredths of a percent.
func (p Percent) Hundredths() int64 { return p.hundredths }

// Float returns the rate as a float for presentation only; never use it for money.
func (p Percent) Float() float64 { return float64(p.hundredths) / 100 }

// String renders the rate with two decimals.
func (p Percent) String() string { return fmt.Sprintf("%d.%02d", p.hundredths/100, p.hundredths%100) }

// MaxMonthPeriod is the longest loan term the bank offers.
const MaxMonthPeriod = 36

// CancelInitiator is who asks to cancel an application.
type CancelInitiator struct{ s string }

// The two initiators of rule 3.5.1.
var (
	InitiatorPartner = CancelInitiator{"PARTNER"}
	InitiatorClient  = CancelInitiator{"CLIENT"}
)

// ParseCancelInitiator accepts PARTNER or CLIENT.
func ParseCancelInitiator(s string) (CancelInitiator, error) {
	switch s {
	case InitiatorPartner.s:
		return InitiatorPartner, nil
	case InitiatorClient.s:
		return InitiatorClient, nil
	}
	return CancelInitiator{}, errors.New("must be one of PARTNER, CLIENT")
}

// String returns the initiator's name.
func (c CancelInitiator) String() string { return c.s }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
