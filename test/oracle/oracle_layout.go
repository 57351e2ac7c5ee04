package oracle

import (
	"slices"
)

// slot is an item being laid out: the interest and service it asks when residue is the
// principal left before it, and what keeps it from growing.
type slot struct {
	charges func(residue int64) int64
	limit   int64 // the most it may ask, principal and charges, or -1 for no limit
	none    bool  // it takes no principal (a payment holiday's item)
}

// annuity lays residue out over the slots as an annuity (§8.3): the smallest whole instalment
// X for which the last slot, taking what is left, asks no more than X (nor than its limit);
// each slot before it asks X or its limit, whichever is smaller, its principal being that less
// its charges (none for a holiday's slot). It returns each slot's principal and X, and false
// when no instalment meets the limits (the limits being what the slots asked with more
// principal, one always does).
func annuity(residue int64, slots []slot) ([]int64, int64, bool) {
	last := len(slots) - 1
	try := func(x int64) ([]int64, bool) {
		parts := make([]int64, len(slots))
		left := residue
		for j, s := range slots[:last] {
			if s.none {
				continue
			}
			asks := x
			if s.limit >= 0 {
				asks = min(x, s.limit)
			}
			parts[j] = min(left, max(0, asks-s.charges(left)))
			left -= parts[j]
		}
		parts[last] = left
		asks := left + slots[last].charges(left)
		return parts, asks <= x && (slots[last].limit < 0 || asks <= slots[last].limit)
	}
	// The last slot asks less the larger X is (the slots before it take more principal), so
	// the smallest X that fits is found by halving, from a bound that fits.
	hi := int64(1)
	for _, ok := try(hi); !ok; _, ok = try(hi) {
		if hi > 1<<61 {
			parts, _ := try(hi)
			return parts, hi, false
		}
		hi *= 2
	}
	lo := hi / 2 // does not fit, or is 0
	if _, ok := try(lo); ok {
		hi = lo
	}
	for lo+1 < hi {
		m := lo + (hi-lo)/2
		if _, ok := try(m); ok {
			hi = m
		} else {
			lo = m
		}
	}
	parts, _ := try(hi)
	return parts, hi, true
}

// EqualParts lays residue out as equal principal parts over items that had caps[j] of
// principal before (§8.4: "a differentiated loan as equal principal parts", "never makes any
// item larger", "never makes the loan longer"), and returns each item's part and the common
// part q.
//
// The rule, written from those sentences: every item takes the common part q, or its cap when
// that is smaller (an item never takes more principal than it had, so its instalment cannot
// grow, and an item that had none, a holiday's or one past the end, takes none); q is the
// largest whole part for which Σ min(q, caps[j]) ≤ residue; the few tiyin that whole parts
// leave over (fewer than the items still below their cap) go to the latest item that can take
// them, then the one before it: at issue, with no caps, that is §8.3's schedule, every item
// floor(amount/months) and the last the rest.
//
// Closed form: with the caps sorted, u(1) ≤ … ≤ u(n), and S(k) the sum of the k smallest, q is
// floor((residue − S(k)) / (n − k)) for the first k whose quotient is below u(k+1): the k
// smallest caps bind, the other items share what is left equally. When residue is all the
// caps together, every item takes its cap.
func EqualParts(residue int64, caps []int64) ([]int64, int64) {
	n := len(caps)
	parts := make([]int64, n)
	var total int64
	for _, u := range caps {
		total += u
	}
	if residue >= total { // every item back to its cap: nothing else fits without growing one
		copy(parts, caps)
		var q int64
		if n > 0 {
			q = slices.Max(caps)
		}
		return parts, q
	}
	sorted := slices.Clone(caps)
	slices.Sort(sorted)
	var q, bound int64
	for k := range n {
		q = (residue - bound) / int64(n-k)
		if q < sorted[k] {
			break
		}
		bound += sorted[k]
	}
	left := residue
	for j, u := range caps {
		parts[j] = min(q, u)
		left -= parts[j]
	}
	for j := n - 1; j >= 0 && left > 0; j-- {
		more := min(left, caps[j]-parts[j])
		parts[j] += more
		left -= more
	}
	return parts, q
}
