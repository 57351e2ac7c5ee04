package domain

import "math/bits"

// exactDen is the denominator of exact amounts: every fraction of a tiyin that the penalty and
// the cap's windows need is a multiple of 1/exactDen. A day's share of an item's charges has
// the period's days as denominator (a period is 28 to 31 days) and a day's penalty 10 000
// (hundredths of a percent): exactDen is the least common multiple of 28, 29, 30, 31 and
// 10 000.
const exactDen = 188_790_000

// exact is an amount of money kept exactly: whole tiyin and a fraction of one, in
// 1/exactDen (0 ≤ frac < exactDen). Amounts of money fit in the whole part; the fraction never
// overflows, so the penalty and the cap are computed without rounding and without big numbers.
type exact struct{ whole, frac int64 }

// exactRatio is n/den (n ≥ 0) for a den that divides exactDen.
func exactRatio(n, den int64) exact {
	return exact{whole: n / den, frac: n % den * (exactDen / den)}
}

// exactProduct is a × b / den (a, b ≥ 0) for a den that divides exactDen, without overflow
// while the result's whole part fits in an int64.
func exactProduct(a, b, den int64) exact {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, r := bits.Div64(hi, lo, uint64(den))
	return exact{whole: int64(q), frac: int64(r) * (exactDen / den)}
}

func (a exact) add(b exact) exact {
	s := exact{whole: a.whole + b.whole, frac: a.frac + b.frac}
	if s.frac >= exactDen {
		s.whole, s.frac = s.whole+1, s.frac-exactDen
	}
	return s
}

func (a exact) sub(b exact) exact {
	s := exact{whole: a.whole - b.whole, frac: a.frac - b.frac}
	if s.frac < 0 {
		s.whole, s.frac = s.whole-1, s.frac+exactDen
	}
	return s
}

// times is a × n (n ≥ 0).
func (a exact) times(n int64) exact {
	f := a.frac * n // < exactDen × 2^35: no overflow for any n below 4e10
	return exact{whole: a.whole*n + f/exactDen, frac: f % exactDen}
}

func (a exact) less(b exact) bool {
	return a.whole < b.whole || a.whole == b.whole && a.frac < b.frac
}

func (a exact) positive() bool { return a.whole > 0 || a.whole == 0 && a.frac > 0 }

// round is the amount rounded half up to whole tiyin.
func (a exact) round() int64 {
	if 2*a.frac >= exactDen {
		return a.whole + 1
	}
	return a.whole
}

// ExactDenominator is the denominator of the fractions of a tiyin a book stores.
const ExactDenominator = exactDen
