package domain

import (
	"math/big"
	"slices"
	"time"
)

// ErrRepaymentAmount means a repayment amount is not positive or above the payoff.
var ErrRepaymentAmount = refusal("repayment-amount", "amount must be positive and not above maxAmount")

// BookItem is a schedule item with what has been paid on it and the principal its period
// held. Its interest and service are not stored: they follow from Held and the principal not
// yet due (DESIGN §8.4: interest is owed once, for the days the principal was held).
type BookItem struct {
	PaymentDate time.Time
	PeriodDays  int
	// Principal is the item's principal, early principal paid in its period included.
	Principal     int64
	PaidPrincipal int64
	// PaidCharges is interest and service paid on the item, less interest paid ahead that a
	// later fall of the principal applied to principal; WaivedCharges is the part of it that
	// operators waived (kept per item from issue 47 on; a waiver before it counts as paid).
	PaidCharges   int64
	WaivedCharges int64
	// Held is the principal held on the period's days before AccrualFrom, in tiyin-days: each
	// day counts the principal not yet due at its end. The days from AccrualFrom to the payment
	// date hold the principal not yet due now, so the item's exact interest is
	// (Held + that × those days) × rate / 365.
	Held        int64
	AccrualFrom time.Time
	// Gone marks an item a prepayment laid out to nothing: it is not reported.
	Gone bool
}

// BookState is a loan's repayment book as stored; repositories only.
type BookState struct {
	Items []BookItem
	// Level is the annuity instalment, or the differentiated schedule's principal part, that a
	// TERM prepayment keeps.
	Level int64
	// PenaltyTo is the business date up to which the penalty is fixed; PenaltyAccrued plus
	// PenaltyFrac / 188 790 000 is the exact penalty accrued from issue to it (rounded only
	// where it is reported or paid).
	PenaltyTo      time.Time
	PenaltyAccrued int64
	PenaltyFrac    int64
	PenaltyPaid    int64
	// PenaltyWaived and InterestWaived are what operators forgave: the penalty owed is what
	// accrued less what was paid and waived; waived interest counts as paid on its items.
	PenaltyWaived  int64
	InterestWaived int64
	// PenaltyLog is the penalty of the 364 days up to PenaltyTo, exact, as runs of days of the
	// same penalty; days it does not cover accrued none. The cap's windows read it.
	PenaltyLog []PenaltySpan
}

// clone is a copy that shares nothing with s.
func (s BookState) clone() *BookState {
	s.Items = append([]BookItem(nil), s.Items...)
	s.PenaltyLog = append([]PenaltySpan(nil), s.PenaltyLog...)
	return &s
}

// PenaltySpan is Days days from From (a business date) that each accrued Daily plus
// DailyFrac / 188 790 000 tiyin of penalty.
type PenaltySpan struct {
	From             time.Time
	Days             int
	Daily, DailyFrac int64
}

// book is the loan's schedule with its repayments applied: the loan's state at any moment is a
// function of it and the moment, and it is itself the fold of the repayments over the original
// schedule.
type book struct {
	BookState
	terms        LoanTerms
	penaltyDaily Percent
}

func newBook(t LoanTerms, penaltyDaily Percent) (*book, error) {
	items, err := BuildSchedule(t)
	if err != nil {
		return nil, err
	}
	b := &book{terms: t, penaltyDaily: penaltyDaily}
	b.Items = make([]BookItem, len(items))
	start := t.IssuedOn
	for i, it := range items {
		b.Items[i] = BookItem{PaymentDate: it.PaymentDate, PeriodDays: it.PeriodDays, Principal: it.Principal, AccrualFrom: start}
		start = it.PaymentDate
	}
	b.Level = items[0].Total()
	if t.Type == ScheduleDifferentiated {
		b.Level = int64(t.Amount) / int64(t.MonthPeriod)
	}
	b.PenaltyTo = t.IssuedOn
	return b, nil
}

// notDue returns, for each item k, the principal of the items from k on not yet paid: what
// item k's open days accrue on. It has one more entry, 0, past the last item.
func (b *book) notDue() []int64 {
	out := make([]int64, len(b.Items)+1)
	for k := len(b.Items) - 1; k >= 0; k-- {
		out[k] = out[k+1] + b.Items[k].Principal - b.Items[k].PaidPrincipal
	}
	return out
}

// charges is item k's interest and service as reported: the exact accrual of its period, its
// days from AccrualFrom on holding notDue, rounded half up each.
func (b *book) charges(it *BookItem, notDue int64) (interest, service int64) {
	return b.accrual(it.Held + notDue*int64(DaysBetween(it.AccrualFrom, it.PaymentDate)))
}

// accrual is the interest and service of held tiyin-days, rounded half up each.
func (b *book) accrual(held int64) (interest, service int64) {
	return Accrue(held, b.terms.Rate, 1), Accrue(held, b.terms.ServiceRate, 1)
}

// termOwed is what the current item c owes of its charges on day: on its payment date all of
// them, before it what accrued to date. It is negative when interest was paid ahead.
func (b *book) termOwed(c int, day time.Time, notDue int64) int64 {
	it := &b.Items[c]
	if it.PaymentDate.Equal(day) {
		i, s := b.charges(it, notDue)
		return i + s - it.PaidCharges
	}
	i, s := b.accrual(it.Held + notDue*int64(DaysBetween(it.AccrualFrom, day)))
	return i + s - it.PaidCharges
}

// standing is the position at a day with what a payment needs.
type standing struct {
	Position
	current int // the earliest item not yet overdue, -1 when none
	// newPenalty is the penalty of the days after PenaltyTo up to the day; penalty the exact
	// penalty accrued from issue to the day.
	newPenalty []PenaltySpan
	penalty    exact
	// owed is the position as a payment's step (1) takes it: its overdue interest is below
	// zero when a book laid out before 26 November 2026 left an overdue item keeping a tiyin
	// more than its charges (a credit). Position shows no part below zero: the credit is shown
	// off the principal, overdue first.
	owed Position
}

// at computes the standing at a business date. An item not fully paid by the end of its
// payment date is overdue; interest paid ahead of the days it is for is credited against the
// principal not yet due.
func (b *book) at(day time.Time) standing {
	s := standing{current: -1}
	nd := b.notDue()
	for k := range b.Items {
		it := &b.Items[k]
		if !it.PaymentDate.Before(day) {
			s.current = k
			break
		}
		i, sv := b.charges(it, nd[k])
		s.OverduePrincipal += it.Principal - it.PaidPrincipal
		s.OverdueInterest += i + sv - it.PaidCharges
	}
	if c := s.current; c >= 0 {
		s.NotDuePrincipal = nd[c]
		if term := b.termOwed(c, day, nd[c]); term >= 0 {
			s.TermInterest = term
		} else {
			s.NotDuePrincipal += term
		}
	}
	s.newPenalty, s.penalty = b.penaltySince(day, nd)
	s.Penalty = s.penalty.round() - b.PenaltyPaid - b.PenaltyWaived
	s.owed = s.Position
	if credit := -s.OverdueInterest; credit > 0 {
		fromOverdue := min(credit, s.OverduePrincipal)
		s.OverdueInterest, s.OverduePrincipal, s.NotDuePrincipal = 0, s.OverduePrincipal-fromOverdue, s.NotDuePrincipal-(credit-fromOverdue)
	}
	return s
}

// RepaymentSplit is how a posted repayment divides between the ledger's accounts.
type RepaymentSplit struct {
	Principal int64
	// Interest is interest and service; it is negative when interest paid ahead went to
	// principal. InterestIncome and ServiceIncome divide it.
	Interest                      int64
	InterestIncome, ServiceIncome int64
	Penalty                       int64
	// Closed reports that the repayment paid the loan off.
	Closed bool
}

// apply applies a repayment made on day in the legal order and recomputes the schedule as its
// type requires (DESIGN §8.4). A payment equal to the payoff is a full early repayment
// whatever its type.
func (b *book) apply(day time.Time, typ PaymentType, amount int64) (RepaymentSplit, error) {
	s := b.at(day)
	payoff := s.Payoff()
	if amount <= 0 || amount > payoff {
		return RepaymentSplit{}, ErrRepaymentAmount
	}
	b.keepPenalty(day, s)
	b.fold(day)
	interestBefore := b.interestPaid()
	var split RepaymentSplit
	if amount == payoff {
		split = b.payOff(day, s)
	} else {
		split = b.pay(day, typ == PaymentEarly, amount, s)
	}
	// The income accounts follow the items: what each has paid divides between interest and
	// service as its charges do, so the accounts end with exactly the interest and service
	// the schedule shows.
	split.InterestIncome = b.interestPaid() - interestBefore
	split.ServiceIncome = split.Interest - split.InterestIncome
	return split, nil
}

// fold closes the days before day: each item's days up to day (or its payment date) join Held
// at the principal they held, so that a payment's changes count from day on.
func (b *book) fold(day time.Time) {
	nd := b.notDue()
	for k := range b.Items {
		it := &b.Items[k]
		to := day
		if it.PaymentDate.Before(to) {
			to = it.PaymentDate
		}
		if n := DaysBetween(it.AccrualFrom, to); n > 0 {
			it.Held += nd[k] * int64(n)
			it.AccrualFrom = to
		}
	}
}

// interestPaid is the interest part of what the items have paid: each item's paid charges
// divided as its interest and service are (rounded down).
func (b *book) interestPaid() int64 {
	nd := b.notDue()
	var sum int64
	for k := range b.Items {
		if i, s := b.charges(&b.Items[k], nd[k]); i+s > 0 {
			sum += floorShare(b.Items[k].PaidCharges, i, i+s)
		}
	}
	return sum
}

// pay applies a payment below the payoff: (1)–(4) of the legal order, then (5) its rest and
// any interest paid ahead that the fall of the principal frees reduce principal, and the
// schedule is laid out again as the payment's type says. EARLY between due dates skips (3):
// its rest after the penalty reduces the principal not yet due, the current item's included,
// and the current and later items are recomputed. Interest paid ahead that finds no principal
// left pays the penalty.
func (b *book) pay(day time.Time, early bool, amount int64, s standing) RepaymentSplit {
	nd := b.notDue()
	c := s.current
	due := Due{OverduePrincipal: s.owed.OverduePrincipal, OverdueInterest: s.owed.OverdueInterest, Penalty: s.Penalty}
	onDue := c >= 0 && b.Items[c].PaymentDate.Equal(day)
	if c >= 0 {
		cur := &b.Items[c]
		i, sv := b.charges(cur, nd[c])
		owed := i + sv - cur.PaidCharges // TERM, and any payment on the payment date: all of it
		due.CurrentPrincipal = cur.Principal - cur.PaidPrincipal
		due.RemainingPrincipal = nd[c+1]
		if early && !onDue {
			owed = b.termOwed(c, day, nd[c])
			due.CurrentPrincipal, due.RemainingPrincipal = 0, nd[c]
		}
		due.CurrentInterest = max(0, owed)
	}
	a := Allocate(due, amount)
	b.payOverdue(day, nd, a.OverduePrincipal, a.OverdueInterest)
	b.PenaltyPaid += a.Penalty
	split := RepaymentSplit{Principal: a.Principal(), Interest: a.Interest(), Penalty: a.Penalty}
	if c < 0 {
		return split
	}
	cur := &b.Items[c]
	cur.PaidCharges += a.CurrentInterest
	cur.PaidPrincipal += a.CurrentPrincipal
	var before, had []int64
	if early {
		before, had = b.dueTotals(c), b.unpaid()
	}
	later := nd[c+1]
	rest := a.Prepaid
	if !onDue && a.CurrentPrincipal+a.Prepaid > 0 {
		e, penalty := b.advanceInterest(c, day, a.Prepaid, s.Penalty-a.Penalty)
		rest += e
		split.Principal += e
		split.Interest -= e + penalty
		split.Penalty += penalty
		cur.PaidCharges -= e + penalty
		b.PenaltyPaid += penalty
	}
	toLater := min(rest, later)
	cur.Principal += toLater
	cur.PaidPrincipal += rest
	switch {
	case early && rest > 0: // with nothing left for (5), nothing is laid out again
		b.recompute(c, onDue, before, had, later-toLater)
	case toLater > 0:
		b.relayout(c, later-toLater)
	}
	return split
}

// payOverdue spreads overdue principal and charges paid over the overdue items, oldest first:
// an item's credit (a tiyin over its charges, left by E's half-up rounding in a book laid out
// before 26 November 2026) is taken first, then what each owes.
func (b *book) payOverdue(day time.Time, nd []int64, principal, charges int64) {
	for k := range b.Items {
		it := &b.Items[k]
		if i, s := b.charges(it, nd[k]); it.PaymentDate.Before(day) && i+s-it.PaidCharges < 0 {
			charges -= i + s - it.PaidCharges
			it.PaidCharges = i + s
		}
	}
	for k := range b.Items {
		it := &b.Items[k]
		if !it.PaymentDate.Before(day) {
			return
		}
		i, s := b.charges(it, nd[k])
		p, c := min(principal, it.Principal-it.PaidPrincipal), min(charges, max(0, i+s-it.PaidCharges))
		it.PaidPrincipal += p
		it.PaidCharges += c
		principal, charges = principal-p, charges-c
	}
}

// advanceInterest is E: the interest item c has paid beyond what its period accrues on the
// residue the payment leaves (x being what the payment's (5) takes off it), applied to
// principal. It is the one amount for which the interest kept equals the accrual on the
// residue E leaves, E* = surplus / (1 − open days × rate / 365) with the service's rate added
// to the interest's, solved exactly and rounded once, in the direction that leaves the item
// keeping exactly its charges as reported: E* rounded half up when that does, else its other
// whole neighbour (E* − 1 when E* is whole: its interest and service may each end in exactly
// half a tiyin); else up, so that no item keeps a tiyin more than it shows. E takes all the
// principal left when E* is above it, or when the interest paid ahead, as rounded, would be a
// credit larger than that principal; the interest still paid ahead then pays the penalty (at
// most penaltyOwed): nothing of a payment is left as a credit.
func (b *book) advanceInterest(c int, day time.Time, x, penaltyOwed int64) (e, penalty int64) {
	it := &b.Items[c]
	left := b.notDue()[c] - x // the principal E can go to
	open := int64(DaysBetween(day, it.PaymentDate))
	rate := b.terms.Rate.hundredths + b.terms.ServiceRate.hundredths
	const year = 10000 * 365
	// surplus × year = paid × year − rate × (held + residue × open)
	num := new(big.Int).Mul(big.NewInt(it.PaidCharges), big.NewInt(year))
	held := new(big.Int).Add(big.NewInt(it.Held), new(big.Int).Mul(big.NewInt(left), big.NewInt(open)))
	num.Sub(num, held.Mul(held, big.NewInt(rate)))
	if num.Sign() <= 0 {
		return 0, 0
	}
	den := big.NewInt(year - open*rate)
	floor, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// keeps is what the item keeps over its charges as reported when E is e.
	keeps := func(e int64) int64 {
		i, s := b.accrual(it.Held + (left-e)*open)
		return it.PaidCharges - e - i - s
	}
	e = left
	if floor.IsInt64() && floor.Int64() < left {
		f := floor.Int64()
		near, other := f, f+1 // E* rounded half up, and its other neighbour
		switch {
		case r.Sign() == 0:
			other = f - 1
		case r.Lsh(r, 1).Cmp(den) >= 0:
			near, other = f+1, f
		}
		e = min(f+1, left)
		for _, cand := range []int64{near, other} {
			if cand >= 0 && cand <= left && keeps(cand) == 0 {
				e = cand
				break
			}
		}
	}
	interest, service := b.accrual(it.Held) // the charges of the days to date
	if it.PaidCharges-e-interest-service > left-e {
		e = left
	}
	if e == left {
		penalty = min(max(0, keeps(e)), penaltyOwed)
	}
	return e, penalty
}

// dueTotals is what each item from c on has still due, principal and charges.
func (b *book) dueTotals(c int) []int64 {
	nd := b.notDue()
	out := make([]int64, len(b.Items))
	for k := c; k < len(b.Items); k++ {
		it := &b.Items[k]
		i, s := b.charges(it, nd[k])
		out[k] = it.Principal - it.PaidPrincipal + i + s - it.PaidCharges
	}
	return out
}

// unpaid is each item's principal not yet paid.
func (b *book) unpaid() []int64 {
	out := make([]int64, len(b.Items))
	for k := range b.Items {
		out[k] = b.Items[k].Principal - b.Items[k].PaidPrincipal
	}
	return out
}

// relayout lays residue, the principal after item c, out again at the same instalment (TERM's
// rest): the loan ends earlier, the items past its principal gone.
func (b *book) relayout(c int, residue int64) {
	last := b.end() // the loan's current end takes what is left: the loan never grows longer
	for k := c + 1; k < len(b.Items); k++ {
		it := &b.Items[k]
		p := residue
		switch {
		case k > last:
			p = 0
		case k < last && b.terms.Type == ScheduleDifferentiated:
			p = min(residue, b.Level)
		case k < last:
			i, s := b.accrual(residue * int64(it.PeriodDays))
			p = min(residue, max(0, b.Level-i-s))
		}
		residue -= p
		// An item with no principal is gone only past the loan's last principal: before it,
		// it is a payment holiday's, and asks its interest.
		it.Principal, it.PaidPrincipal, it.Gone = p, 0, p == 0 && residue == 0
	}
}

// end is the index of the loan's last item that still has principal.
func (b *book) end() int {
	for k := len(b.Items) - 1; k >= 0; k-- {
		if !b.Items[k].Gone && b.Items[k].Principal > 0 {
			return k
		}
	}
	return len(b.Items) - 1
}

// recompute lays the principal not yet due out again after an EARLY payment, from the payment
// date to the loan's current end on the same dates, no item due more than before (before is
// what each item had due before the payment's (5)). The current item takes part unless it is
// due today; later is the principal after it.
func (b *book) recompute(c int, onDue bool, before, had []int64, later int64) {
	last := b.end()
	cur := &b.Items[c]
	from, residue := c, later+cur.Principal-cur.PaidPrincipal
	if onDue {
		from, residue = c+1, later
	}
	if from > last || residue == 0 {
		for k := max(from, c+1); k < len(b.Items); k++ {
			b.Items[k].Principal, b.Items[k].PaidPrincipal, b.Items[k].Gone = 0, 0, true
		}
		if from == c {
			cur.Principal = cur.PaidPrincipal
		}
		return
	}
	r := relay{b: b, items: b.Items[from : last+1], limits: before[from : last+1], had: had[from : last+1],
		principals: make([]int64, last-from+1)}
	if from == c {
		r.current = cur
	}
	if b.terms.Type == ScheduleDifferentiated {
		b.Level = r.differentiated(residue)
	} else {
		b.Level = r.annuity(residue, true)
	}
	end := 0 // the last item laid out with principal: an item with none before it is a holiday's
	for j, p := range r.principals {
		if p > 0 {
			end = j
		}
	}
	for j, p := range r.principals {
		it := &r.items[j]
		if from+j == c {
			it.Principal = it.PaidPrincipal + p
			continue
		}
		it.Principal, it.PaidPrincipal, it.Gone = p, 0, j > end
	}
	for k := last + 1; k < len(b.Items); k++ {
		b.Items[k].Principal, b.Items[k].PaidPrincipal, b.Items[k].Gone = 0, 0, true
	}
}

// relay lays a residue out over items, for EARLY's recomputation.
type relay struct {
	b      *book
	items  []BookItem
	limits []int64 // each item's due before the payment: no item grows
	// current, when it takes part, is the first item: its closed days keep what they held and
	// it counts what it has paid.
	current    *BookItem
	principals []int64
	// holiday is how many items, from the first, take no principal (a payment holiday).
	holiday int
	// had, when set, is each item's principal not yet paid before the payment: an item takes no
	// more (a differentiated part), and one that had none (a holiday's, or a tiny loan's item
	// of no principal) takes none.
	had []int64
}

// due is the charges item j counts with residue left before it.
func (r *relay) due(j int, residue int64) int64 {
	it := &r.items[j]
	if j > 0 || r.current == nil {
		i, s := r.b.accrual(residue * int64(it.PeriodDays))
		return i + s
	}
	i, s := r.b.accrual(it.Held + residue*int64(DaysBetween(it.AccrualFrom, it.PaymentDate)))
	return i + s - it.PaidCharges
}

// layout lays residue out with part(j, charges) the principal of each item before the last,
// the last taking the rest, and returns the last item's total.
func (r *relay) layout(residue int64, part func(j int, charges int64) int64) int64 {
	n := len(r.items)
	var charges int64
	for j := range n {
		charges = r.due(j, residue)
		p := residue // the last item takes the rest
		switch {
		case j == n-1:
		case j < r.holiday, r.had != nil && r.had[j] == 0:
			p = 0
		default:
			p = min(residue, max(0, part(j, charges)))
		}
		r.principals[j] = p
		residue -= p
	}
	return r.principals[n-1] + charges
}

// annuity lays residue out as an annuity: the smallest whole instalment X for which the last
// item is not larger than X (nor, with limits, than its limit), each item before it due X or
// its limit, whichever is smaller. It returns X. Without an instalment that meets the limits
// it lays the standard annuity.
func (r *relay) annuity(residue int64, limited bool) int64 {
	n := len(r.items)
	fits := func(x int64) bool {
		total := r.layout(residue, func(j int, c int64) int64 {
			if limited {
				return min(x, r.limits[j]) - c
			}
			return x - c
		})
		return total <= x && (!limited || total <= r.limits[n-1])
	}
	lo, hi := int64(0), int64(1)
	for !fits(hi) {
		if hi > 1<<62 {
			return r.annuity(residue, false)
		}
		lo, hi = hi, hi*2
	}
	for lo < hi {
		m := lo + (hi-lo)/2
		if fits(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	fits(hi) // lay it out
	return hi
}

// differentiated lays residue out in equal principal parts, no item taking more principal than
// it had (so none grows, and one that had none, a holiday's, takes none): each item takes the
// part q, or its old principal when that is smaller, q being the largest whole part whose
// layout fits in the residue; the few tiyin whole parts leave over go to the latest items with
// room. It returns q.
func (r *relay) differentiated(residue int64) int64 {
	caps := make([]int64, len(r.items))
	for j := range r.items {
		caps[j] = r.had[j]
	}
	laid := func(q int64) (sum int64) {
		for _, c := range caps {
			sum += min(q, c)
		}
		return sum
	}
	// laid grows with q: find the largest q with laid(q) ≤ residue by halving.
	q, hi := int64(0), slices.Max(caps)
	for q < hi {
		if m := hi - (hi-q)/2; laid(m) <= residue {
			q = m
		} else {
			hi = m - 1
		}
	}
	left := residue - laid(q)
	for j := len(caps) - 1; j >= 0; j-- {
		r.principals[j] = min(q, caps[j])
		more := min(left, caps[j]-r.principals[j])
		r.principals[j] += more
		left -= more
	}
	return q
}

// payOff closes the loan with a payment of its whole payoff: overdue items are settled, the
// current item keeps the charges accrued to date and takes all principal left, and the items
// after it are gone.
func (b *book) payOff(day time.Time, s standing) RepaymentSplit {
	nd := b.notDue()
	split := RepaymentSplit{Principal: s.owed.OverduePrincipal, Interest: s.owed.OverdueInterest, Penalty: s.Penalty, Closed: true}
	b.PenaltyPaid += s.Penalty
	c := s.current
	for k := range b.Items {
		if c >= 0 && k >= c {
			break
		}
		it := &b.Items[k]
		i, sv := b.charges(it, nd[k])
		it.PaidPrincipal, it.PaidCharges = it.Principal, i+sv
	}
	if c < 0 {
		return split
	}
	cur := &b.Items[c]
	split.Principal += nd[c]
	split.Interest += b.termOwed(c, day, nd[c])
	cur.Principal += nd[c+1]
	for k := c + 1; k < len(b.Items); k++ {
		b.Items[k].Principal, b.Items[k].PaidPrincipal, b.Items[k].Gone = 0, 0, true
	}
	cur.PaidPrincipal = cur.Principal
	i, sv := b.charges(cur, 0) // its open days hold nothing now
	cur.PaidCharges = i + sv
	return split
}

// schedule is the schedule as it stands: items laid out to nothing by a prepayment are gone.
func (b *book) schedule() []ScheduleItem {
	nd := b.notDue()
	out := make([]ScheduleItem, 0, len(b.Items))
	residue := int64(b.terms.Amount)
	for k := range b.Items {
		it := &b.Items[k]
		if it.Gone {
			continue
		}
		i, s := b.charges(it, nd[k])
		residue -= it.Principal
		out = append(out, ScheduleItem{PaymentDate: it.PaymentDate, PeriodDays: it.PeriodDays, Principal: it.Principal,
			Interest: i, Service: s, Residue: residue})
	}
	return out
}
