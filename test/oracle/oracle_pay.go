package oracle

import (
	"math/big"
)

// Pay applies a payment of amount, EARLY or TERM, today, in the order of the law (§8.4):
// (1) overdue principal and overdue interest in proportion; (2) the current item's interest;
// (3) its principal; (4) the penalty; (5) the rest reduces the principal not yet due.
//
// TERM takes in (2) the current item's interest for its whole period (the days not yet
// elapsed paid in advance) and in (3) its principal; its rest in (5), and any E, reduce the
// principal after the current item, laid out again at the loan's instalment. EARLY between due dates takes in (2) the interest accrued to date, skips
// (3), and its rest in (5) recomputes the current and later items up to the loan's current
// end; on a due date it settles the item due that day as TERM would and recomputes only the
// later items. When principal falls before the current item's date, the interest it paid
// ahead beyond the period's accrual on the new residue is given back to principal (E), and
// what finds no principal pays the penalty. A payment of the whole payoff closes the loan.
func (l *Loan) Pay(early bool, amount int64) (Split, error) {
	l.given = 0
	split, err := l.pay(early, amount)
	if err == nil {
		l.bookPayment(amount, split)
	}
	return split, err
}

// pay is Pay without the books.
func (l *Loan) pay(early bool, amount int64) (Split, error) {
	pos := l.Position()
	if l.closed || amount <= 0 || amount > pos.Payoff() {
		return Split{}, ErrAmount
	}
	if amount == pos.Payoff() {
		return l.payOff(pos), nil
	}
	var split Split
	x := amount
	// (1) overdue principal and interest, in proportion: principal floor(x × p / (p + i)).
	op, oc := l.overdue(l.today)
	if x >= op+oc {
		split.Principal, split.Interest = op, oc
	} else {
		pp := new(big.Int).Mul(big.NewInt(x), big.NewInt(op))
		pp.Quo(pp, big.NewInt(op+oc))
		split.Principal, split.Interest = pp.Int64(), x-pp.Int64()
	}
	x -= split.Principal + split.Interest
	l.spreadOverdue(split.Principal, split.Interest)
	penalty := l.penaltyOwed()
	c := l.current(l.today)
	if c < 0 { // after the loan's last date only the penalty is left
		split.Penalty = min(x, penalty)
		l.penPaid += split.Penalty
		if x > split.Penalty {
			l.fail("%d of a payment found nothing to pay", x-split.Penalty)
		}
		return split, nil
	}
	cur := l.items[c]
	onDue := cur.date.Equal(l.today)
	between := early && !onDue // EARLY between due dates
	// (2) the current item's interest: for EARLY between due dates what it accrued to date,
	// otherwise its whole period's.
	i, s := l.charges(c)
	owed := i + s - cur.paidC
	if between {
		owed = l.accrued(c) - cur.paidC
	}
	paid := min(x, max(0, owed))
	cur.paidC += paid
	split.Interest += paid
	x -= paid
	// (3) its principal, skipped by EARLY between due dates.
	var cp int64
	if !between {
		cp = min(x, l.unpaid(c))
		cur.paidP += cp
		split.Principal += cp
		x -= cp
	}
	// (4) the penalty.
	paid = min(x, penalty)
	l.penPaid += paid
	split.Penalty += paid
	x -= paid
	// What each item from the current one asks before (5), and its principal: (5) may lower
	// them, never raise them (§8.4: an EARLY payment "never makes any item larger").
	asked, had := make([]int64, len(l.items)), make([]int64, len(l.items))
	for k := c; k < len(l.items); k++ {
		i, s := l.charges(k)
		asked[k] = l.unpaid(k) + i + s - l.items[k].paidC
		had[k] = l.unpaid(k)
	}
	end := -1 // the loan's current end: its last item that still has principal
	for k := len(l.items) - 1; k >= c && end < 0; k-- {
		if had[k] > 0 {
			end = k
		}
	}
	// (5) the rest reduces the principal not yet due. When principal fell before the current
	// item's date, the interest it paid ahead beyond its period's accrual on the new residue
	// goes to principal too (E), and what of it finds no principal pays the penalty.
	rest := x
	if rest > l.notDue(c) {
		l.fail("%d of a payment found no principal", rest-l.notDue(c))
		rest = l.notDue(c)
	}
	var e, back int64
	if !onDue && cp+rest > 0 {
		e, back = l.giveBack(c, rest, penalty-split.Penalty)
		l.given = e + back
		cur.paidC -= e + back
		split.Interest -= e + back
		split.Principal += e
		split.Penalty += back
		l.penPaid += back
	}
	down := rest + e // principal not yet due, paid today before its date
	split.Principal += rest
	if down == 0 {
		return split, nil
	}
	switch {
	case between:
		// The current and later items are recomputed up to the current end.
		residue := l.notDue(c) - down
		cur.principal += down
		cur.paidP += down
		l.recompute(c, c, end, residue, asked, had)
	case early:
		// On the current item's date, it was settled by (2) and (3); the later items are
		// recomputed.
		residue := l.notDue(c+1) - down
		cur.principal += down
		cur.paidP += down
		l.recompute(c, c+1, end, residue, asked, had)
	default:
		// TERM: the rest, and E "as (5)", reduce the principal after the current item, whose
		// items are laid out again at the same instalment, even when (3) left some of the
		// current item's principal unpaid; only what finds no later principal goes to it.
		later := min(down, l.notDue(c+1))
		cur.paidP += down - later
		if later > 0 {
			residue := l.notDue(c+1) - later
			cur.principal += later
			cur.paidP += later
			l.relayout(c, end, residue)
		}
	}
	return split, nil
}

// giveBack is E (§8.4) for the current item c when the principal not yet due falls by this
// payment's (3) and, still to come, rest: the interest it paid beyond what its period accrues
// on the new residue, applied to principal. E is the unique amount for which the interest
// kept equals the accrual on the residue E leaves, E* = surplus / (1 − open days × rate / 365)
// (interest and service together), solved exactly and rounded once: to the neighbour of E*
// that leaves the item's interest kept equal to its charges as reported. It also returns what
// of the interest paid ahead found no principal left (or would, as reported, exceed the
// principal its days are for): that pays the penalty, within penalty.
func (l *Loan) giveBack(c int, rest, penalty int64) (int64, int64) {
	it := l.items[c]
	open := int64(it.periodDays - it.closedDays)
	if it.frozen || open == 0 {
		return 0, 0
	}
	base := l.notDue(c) - rest // the residue (5) leaves before E
	both := add(l.rate, l.service)
	kept := add(add(it.accI, it.accS), mul(rat(base*open), both))
	surplus := sub(rat(it.paidC), kept)
	if surplus.Sign() <= 0 {
		return 0, 0
	}
	// g(e) is what the item keeps beyond its charges as reported when e goes to principal.
	g := func(e int64) int64 {
		i, s := l.projected(c, base-e)
		return it.paidC - e - i - s
	}
	exact := quo(surplus, sub(one, mul(rat(open), both)))
	var e int64
	if exact.Cmp(rat(base)) >= 0 {
		e = base
	} else {
		// Each tiyin of E lowers what is kept by one and the charges as reported by 0, 1 or 2
		// (interest and service rounded apart), so g steps by at most one and one of E*'s
		// neighbours keeps exactly what is shown: the nearer when both do. When E* is whole
		// and its interest and service each end in exactly half a tiyin, both round up and
		// E* − 1 is that neighbour.
		near := roundHalfUp(exact)
		other := 2*floor(exact) + 1 - near
		if exact.IsInt() {
			other = near - 1
		}
		e = -1
		for _, cand := range []int64{near, other} {
			if cand >= 0 && cand <= base && g(cand) == 0 {
				e = cand
				break
			}
		}
		if e < 0 {
			l.fail("no rounding of E = %s keeps item %d's interest equal to its charges", exact.FloatString(3), c+1)
			e = min(max(near, 0), base)
		}
	}
	// The interest paid ahead for the days to come is a credit against the principal those
	// days are for; rounded, it could exceed a residue of a tiyin or two. Then no principal is
	// left for it: E takes it all.
	if it.paidC-e-l.accrued(c) > base-e {
		e = base
	}
	left := max(0, g(e)) // interest paid ahead that finds no principal
	back := min(left, penalty)
	if left > back {
		l.fail("%d of interest paid ahead found neither principal nor penalty", left-back)
	}
	return e, back
}

// recompute lays residue, the principal not yet due after an EARLY payment's (5), out again
// over the items from from (the current item c, or the one after it when c is due today) to
// end, the loan's current end, keeping their dates (§8.4): an annuity as equal instalments, a
// differentiated loan as equal principal parts. asked and had are what each item asked, and
// its principal, before (5): no item asks more after, and an item that had no principal (a
// payment holiday's) takes none.
func (l *Loan) recompute(c, from, end int, residue int64, asked, had []int64) {
	if residue == 0 || end < from {
		if residue > 0 {
			l.fail("%d of principal has no item to go to", residue)
		}
		for k := from; k < len(l.items); k++ {
			l.setPrincipal(c, k, 0)
		}
		l.trim(c)
		return
	}
	n := end - from + 1
	var parts []int64
	if l.t.Differentiated {
		parts, l.level = EqualParts(residue, had[from:end+1])
	} else {
		slots := make([]slot, n)
		for j := range slots {
			k := from + j
			slots[j] = slot{charges: l.asksCharges(k), limit: asked[k], none: had[k] == 0}
		}
		var ok bool
		if parts, l.level, ok = annuity(residue, slots); !ok {
			l.fail("no instalment lays %d out without growing an item", residue)
		}
	}
	for j, p := range parts {
		l.setPrincipal(c, from+j, p)
	}
	for k := end + 1; k < len(l.items); k++ {
		l.setPrincipal(c, k, 0)
	}
	l.trim(c)
}

// relayout lays residue, the principal after the current item c once a TERM payment's rest
// went to it, out again over the later items at the loan's instalment (§8.4: "laid out again
// at the same instalment, so the loan ends earlier"): an annuity's items ask the instalment,
// a differentiated loan's take its principal part, until the residue runs out; end, the
// loan's last item with principal before, takes what is left.
func (l *Loan) relayout(c, end int, residue int64) {
	for k := c + 1; k < len(l.items); k++ {
		p := residue
		if k < end {
			if l.t.Differentiated {
				p = min(residue, l.level)
			} else {
				p = min(residue, max(0, l.level-l.asksCharges(k)(residue)))
			}
		} else if k > end {
			p = 0
		}
		l.setPrincipal(c, k, p)
		residue -= p
	}
	l.trim(c)
}

// asksCharges is the interest and service item k asks when residue is the principal not yet
// due during its period: for the current item, its whole period's (its closed days as they
// accrued, its open days on residue) less what it has paid.
func (l *Loan) asksCharges(k int) func(int64) int64 {
	return func(residue int64) int64 {
		i, s := l.projected(k, residue)
		return i + s - l.items[k].paidC
	}
}

// setPrincipal gives item k the principal p laid out on it: the current item c keeps the
// principal paid on it besides.
func (l *Loan) setPrincipal(c, k int, p int64) {
	it := l.items[k]
	if k == c {
		it.principal = it.paidP + p
		return
	}
	it.principal, it.paidP, it.gone = p, 0, false
}

// trim marks the items after the loan's last principal gone (§8.3: "after a prepayment the
// schedule may be shorter (items past the last principal are gone)"); the current item c
// stays.
func (l *Loan) trim(c int) {
	last := c
	for k := len(l.items) - 1; k > c; k-- {
		if l.items[k].principal > 0 {
			last = k
			break
		}
	}
	for k := last + 1; k < len(l.items); k++ {
		l.items[k].principal, l.items[k].paidP, l.items[k].gone = 0, 0, true
	}
}

// spreadOverdue spreads overdue principal rp and charges rc, paid or waived, over the overdue
// items, oldest first.
func (l *Loan) spreadOverdue(rp, rc int64) {
	for k, it := range l.items {
		if !it.date.Before(l.today) {
			break
		}
		i, s := l.charges(k)
		dp, dc := min(rp, l.unpaid(k)), min(rc, max(0, i+s-it.paidC))
		it.paidP += dp
		it.paidC += dc
		rp -= dp
		rc -= dc
	}
	if rp != 0 || rc != 0 {
		l.fail("%d of overdue principal and %d of overdue charges found no item", rp, rc)
	}
}

// payOff closes the loan with a payment of its whole payoff: the current item keeps the charges
// accrued to date (interest is owed only for the days the principal was held), the principal
// of the later items is paid early in its period, and the later items are gone.
func (l *Loan) payOff(pos Position) Split {
	split := Split{Principal: pos.OverduePrincipal, Interest: pos.OverdueInterest, Penalty: pos.Penalty}
	c := l.current(l.today)
	for k, it := range l.items {
		if c >= 0 && k >= c {
			break
		}
		i, s := l.charges(k)
		it.paidP, it.paidC = it.principal, i+s
	}
	l.penPaid += pos.Penalty
	l.closed = true
	if c < 0 {
		return split
	}
	cur := l.items[c]
	split.Principal += l.notDue(c)
	split.Interest += l.accrued(c) - cur.paidC
	l.given = max(0, cur.paidC-l.accrued(c)) // interest paid ahead, back to principal
	cur.frozen = true
	cur.principal += l.notDue(c + 1)
	for _, later := range l.items[c+1:] {
		later.principal, later.paidP, later.gone = 0, 0, true
	}
	i, s := l.charges(c)
	cur.paidP, cur.paidC = cur.principal, i+s
	return split
}
