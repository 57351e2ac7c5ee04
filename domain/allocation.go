package domain

import (
	"errors"
	"math/big"
)

// PaymentType is how a repayment is applied.
type PaymentType struct{ s string }

// The two payment types of endpoint 13.
var (
	// PaymentTerm pays the current item's full scheduled interest; the rest prepays future
	// items' principal in due-date order (same instalment, the loan ends earlier).
	PaymentTerm = PaymentType{"TERM"}
	// PaymentEarly pays the interest accrued to date; the rest reduces principal and the
	// current and later items are recomputed to the loan's current end date (smaller
	// instalments). Either way, interest paid ahead for days the principal is no longer held
	// goes to principal (DESIGN §8.4).
	PaymentEarly = PaymentType{"EARLY"}
)

// ParsePaymentType accepts TERM or EARLY.
func ParsePaymentType(s string) (PaymentType, error) {
	t, err := parseEnum(s, []PaymentType{PaymentTerm, PaymentEarly})
	if err != nil {
		return PaymentType{}, errors.New("must be one of TERM, EARLY")
	}
	return t, nil
}

// String returns the name.
func (t PaymentType) String() string { return t.s }

// Due is what the legal order allocates a payment against.
type Due struct {
	OverduePrincipal, OverdueInterest int64
	// CurrentInterest is the current item's interest (and service): its full scheduled amount
	// for a TERM payment, the amount accrued to date for an EARLY one.
	CurrentInterest int64
	// CurrentPrincipal is the current item's scheduled principal.
	CurrentPrincipal int64
	Penalty          int64
	// RemainingPrincipal is principal not yet due beyond the current item's.
	RemainingPrincipal int64
}

// Allocation is how a payment was applied.
type Allocation struct {
	OverduePrincipal, OverdueInterest int64
	CurrentInterest, CurrentPrincipal int64
	Penalty                           int64
	// Prepaid is principal paid ahead of its due date.
	Prepaid int64
	// Unapplied is what is left when every debt is paid (the caller refuses such a payment).
	Unapplied int64
}

// Principal is all principal the payment repaid.
func (a Allocation) Principal() int64 { return a.OverduePrincipal + a.CurrentPrincipal + a.Prepaid }

// Interest is all interest and service the payment repaid.
func (a Allocation) Interest() int64 { return a.OverdueInterest + a.CurrentInterest }

// Allocate applies amount in the order of the Civil Code, art. 248 as amended by ZRU-914:
// (1) overdue principal and overdue interest, proportionally (principal takes
// floor(x × p / (p + i)) of the x available, interest the rest); (2) the current item's
// interest; (3) its principal; (4) penalty; (5) what is left reduces the remaining principal.
func Allocate(d Due, amount int64) Allocation {
	var a Allocation
	left := amount
	take := func(debt int64) int64 {
		x := min(max(debt, 0), left)
		left -= x
		return x
	}
	switch overdue := d.OverduePrincipal + d.OverdueInterest; {
	case overdue > 0:
		x := take(overdue)
		a.OverduePrincipal = floorShare(x, d.OverduePrincipal, overdue)
		a.OverdueInterest = x - a.OverduePrincipal
	default:
		// An overdue item a tiyin over its charges (a credit left by E's half-up rounding in a
		// book laid out before 26 November 2026): the credit is taken first, with any overdue
		// principal it offsets.
		a.OverduePrincipal, a.OverdueInterest = d.OverduePrincipal, d.OverdueInterest
		left -= overdue
	}
	a.CurrentInterest = take(d.CurrentInterest)
	a.CurrentPrincipal = take(d.CurrentPrincipal)
	a.Penalty = take(d.Penalty)
	a.Prepaid = take(d.RemainingPrincipal)
	a.Unapplied = left
	return a
}

// floorShare is floor(x × part / whole) without overflow.
func floorShare(x, part, whole int64) int64 {
	n := new(big.Int).Mul(big.NewInt(x), big.NewInt(part))
	return n.Quo(n, big.NewInt(whole)).Int64()
}
