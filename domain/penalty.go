package domain

import "time"

// The penalty accrues each day on the principal overdue at the day's start, at the daily
// percent, and within the Central Bank cap: in every 365-day window that holds the day, the
// window's interest and service (each item's, as reported, spread evenly over its period's
// days) and its penalty stay within half of the amount. A day takes only the room that every
// window through it leaves; penalty accrued before a window never uses its room. All of it is
// exact (DESIGN §8.3): the penalty is rounded only where it is reported or paid.

// penaltySince returns the penalty of the days after PenaltyTo up to day, as runs of days of
// equal penalty, and the exact penalty accrued from issue to day. nd is b.notDue().
func (b *book) penaltySince(day time.Time, nd []int64) ([]PenaltySpan, exact) {
	total := exact{b.PenaltyAccrued, b.PenaltyFrac}
	first, last := b.dayNumber(b.PenaltyTo)+1, b.dayNumber(day)
	if last < first || b.penaltyDaily.hundredths == 0 {
		return nil, total
	}
	p := penaltyRun{b: b, first: first, due: make([]int, len(b.Items))}
	for k := range b.Items {
		p.due[k] = b.dayNumber(b.Items[k].PaymentDate)
	}
	// A 365-day window meets 13 periods at most: no window holds more charges than the
	// dearest 13 items in a row.
	line := b.chargeLine(nd)
	var dearest int64
	for k := range line.charges {
		dearest = max(dearest, line.before[min(k+13, len(line.charges))]-line.before[k])
	}
	var history exact
	for _, sp := range b.PenaltyLog {
		history = history.add(exact{sp.Daily, sp.DailyFrac}.times(int64(sp.Days)))
	}
	// The cap cannot bind when the dearest window's charges, the last year's penalty and a
	// year of the largest daily penalty fit in it: then each day takes its penalty in full, a
	// run at a time.
	limit := exact{whole: int64(b.terms.Amount) / CapShare}
	if !limit.less(exact{whole: dearest}.add(history).add(b.dailyPenalty(p.overdueOn(last)).times(365))) {
		p.next = 0
		for n := first; n <= last; {
			overdue, until := p.overdueOn(n), last
			if p.next < len(p.due) {
				until = min(until, p.due[p.next]) // the next item falls overdue the day after
			}
			p.add(n, until-n+1, b.dailyPenalty(overdue))
			n = until + 1
		}
	} else {
		p.capped(last, line, limit)
	}
	for _, sp := range p.spans {
		total = total.add(exact{sp.Daily, sp.DailyFrac}.times(int64(sp.Days)))
	}
	return p.spans, total
}

// dayNumber is a business date's number of days from the issue date.
func (b *book) dayNumber(d time.Time) int { return DaysBetween(b.terms.IssuedOn, d) }

// overdueOn is the principal overdue at the start of day n: of the items due before it. Calls
// after the first ask for n in increasing order (p.next, the first item not yet overdue, only
// moves forward); resetting p.next to 0 starts again.
func (p *penaltyRun) overdueOn(n int) int64 {
	if p.next == 0 {
		p.overdue = 0
	}
	for ; p.next < len(p.due) && p.due[p.next] < n; p.next++ {
		it := &p.b.Items[p.next]
		p.overdue += it.Principal - it.PaidPrincipal
	}
	return p.overdue
}

// dailyPenalty is a day's penalty on overdue principal, before the cap.
func (b *book) dailyPenalty(overdue int64) exact {
	if overdue <= 0 {
		return exact{}
	}
	return exactProduct(overdue, int64(b.penaltyDaily.hundredths), 10000)
}

// penaltyRun collects the penalty of consecutive days from first as runs of equal days.
type penaltyRun struct {
	b     *book
	first int
	due   []int // the items' payment dates as day numbers
	// next is the first item not yet overdue, overdue the principal of those before it.
	next    int
	overdue int64
	spans   []PenaltySpan
	end     int // the day after the last span
}

// add appends days days from day n of penalty v each.
func (p *penaltyRun) add(n, days int, v exact) {
	if !v.positive() {
		return
	}
	if k := len(p.spans) - 1; k >= 0 {
		if sp := &p.spans[k]; sp.Daily == v.whole && sp.DailyFrac == v.frac && p.end == n {
			sp.Days += days
			p.end += days
			return
		}
	}
	p.spans = append(p.spans, PenaltySpan{From: p.b.terms.IssuedOn.AddDate(0, 0, n), Days: days, Daily: v.whole, DailyFrac: v.frac})
	p.end = n + days
}

// capped adds the penalty of each day from p.first to last within the cap. Day n's room in
// the window from w is A(w) − pre(n), A(w) = limit − charges(w, w+365) + pre(w), pre(x) being
// the penalty of the days before x since the history's first day; so a day's room is the least
// A over the windows through it (w from n−364 to n, not before issue) less pre(n), found with a
// deque of windows whose A increase.
func (p *penaltyRun) capped(last int, line chargeLine, limit exact) {
	const ring = 366
	origin := p.first - 364
	var pre [ring]exact // pre[x % ring] for x from origin
	idx := func(x int) int { return ((x-origin)%ring + ring) % ring }
	daily := make([]exact, 364)
	for _, sp := range p.b.PenaltyLog {
		start := p.b.dayNumber(sp.From) - origin
		for k := range sp.Days {
			if i := start + k; i >= 0 && i < len(daily) {
				daily[i] = exact{sp.Daily, sp.DailyFrac}
			}
		}
	}
	for i, v := range daily {
		pre[idx(origin+i+1)] = pre[idx(origin+i)].add(v)
	}
	type window struct {
		w int
		a exact
	}
	deque := make([]window, 0, last-origin+2) // windows are pushed once each: no reallocation
	head := 0                                 // deque[head:] are the windows kept
	var lo, hi int                            // cursors of the charge line for the window's start and end
	push := func(w int) {
		if w < 0 {
			return
		}
		charges := line.at(w+365, &hi).sub(line.at(w, &lo))
		a := limit.sub(charges).add(pre[idx(w)])
		for len(deque) > head && !deque[len(deque)-1].a.less(a) {
			deque = deque[:len(deque)-1]
		}
		deque = append(deque, window{w, a})
	}
	for w := origin; w < p.first; w++ {
		push(w)
	}
	p.next = 0
	for n := p.first; n <= last; n++ {
		push(n)
		for deque[head].w < n-364 {
			head++
		}
		v := p.b.dailyPenalty(p.overdueOn(n))
		if room := deque[head].a.sub(pre[idx(n)]); room.less(v) {
			v = room
		}
		if !v.positive() {
			v = exact{}
		}
		pre[idx(n+1)] = pre[idx(n)].add(v)
		p.add(n, 1, v)
	}
}

// chargeLine is the loan's interest and service day by day, each item's spread evenly over its
// period (gone items accrue none): at(x) is what the days before day x accrue.
type chargeLine struct {
	start, end []int
	charges    []int64
	before     []int64 // the charges of the items before each
}

func (b *book) chargeLine(nd []int64) chargeLine {
	n := len(b.Items)
	l := chargeLine{start: make([]int, n), end: make([]int, n), charges: make([]int64, n), before: make([]int64, n+1)}
	for k := range b.Items {
		it := &b.Items[k]
		l.end[k] = b.dayNumber(it.PaymentDate)
		l.start[k] = l.end[k] - it.PeriodDays
		if !it.Gone {
			i, s := b.charges(it, nd[k])
			l.charges[k] = i + s
		}
		l.before[k+1] = l.before[k] + l.charges[k]
	}
	return l
}

// at is the charges of the days before day x; cursor, an item index, only moves forward, so
// calls must ask for x in increasing order.
func (l chargeLine) at(x int, cursor *int) exact {
	for *cursor < len(l.end) && l.end[*cursor] <= x {
		*cursor++
	}
	k := *cursor
	if k == len(l.end) || x <= l.start[k] {
		return exact{whole: l.before[k]}
	}
	days := int64(x - l.start[k])
	return exact{whole: l.before[k]}.add(exactRatio(l.charges[k]*days, int64(l.end[k]-l.start[k])))
}

// keepPenalty fixes the penalty up to day: its exact total and the last 364 days' penalty.
func (b *book) keepPenalty(day time.Time, s standing) {
	if !day.After(b.PenaltyTo) {
		return
	}
	from := b.dayNumber(day) - 363
	log := make([]PenaltySpan, 0, len(b.PenaltyLog)+len(s.newPenalty))
	for _, sp := range append(append([]PenaltySpan{}, b.PenaltyLog...), s.newPenalty...) {
		if cut := from - b.dayNumber(sp.From); cut > 0 {
			if sp.Days <= cut {
				continue
			}
			sp.From, sp.Days = sp.From.AddDate(0, 0, cut), sp.Days-cut
		}
		if k := len(log) - 1; k >= 0 && log[k].Daily == sp.Daily && log[k].DailyFrac == sp.DailyFrac &&
			b.dayNumber(log[k].From)+log[k].Days == b.dayNumber(sp.From) {
			log[k].Days += sp.Days
			continue
		}
		log = append(log, sp)
	}
	b.PenaltyLog = log
	b.PenaltyTo, b.PenaltyAccrued, b.PenaltyFrac = day, s.penalty.whole, s.penalty.frac
}
