package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ErrRestructure means a restructuring does not fit the loan: past its last payment date, a
// term beyond 36 months, or a schedule over the Central Bank cap.
var ErrRestructure = errors.New("the restructuring does not fit the loan")

// Restructure lays the loan's principal not yet due out again at now, over its current end and
// months more (a longer term), the first holiday of the new instalments asking interest only (a
// payment holiday: the principal rests, the interest keeps accruing and is due on each date).
// Past items, overdue ones included, do not change; an item due today is settled as it stands,
// and the layout starts after it; the current item keeps the days of its period already
// passed. The new schedule is an annuity (the smallest instalment whose last is not larger) or
// equal principal parts, as the loan's; it must end within 36 months of issue and keep its
// interest and service within the cap in every 365-day window (DESIGN §8.3).
func (l *Loan) Restructure(now time.Time, months, holiday int) error {
	b, err := l.openBook()
	if err != nil {
		return err
	}
	if !l.writtenOffAt.IsZero() {
		return ErrLoanWrittenOff
	}
	if months < 1 || holiday < 0 || holiday > months {
		return fmt.Errorf("%w: extend by 1 month or more, the holiday not longer than the extension", ErrRestructure)
	}
	// On a copy of the book: a restructuring that does not fit leaves the loan as it was.
	trial := &book{BookState: *b.clone(), terms: b.terms, penaltyDaily: b.penaltyDaily}
	if err := trial.restructure(BusinessDate(now), months, holiday, 0); err != nil {
		return err
	}
	trial.terms.MonthPeriod = len(trial.Items)
	if !ScheduledChargesWithinCap(trial.terms, trial.schedule()) || !trial.capKept(BusinessDate(now)) {
		return fmt.Errorf("%w: its interest and service would exceed half of the amount within a year (Central Bank cap)", ErrRestructure)
	}
	l.book, l.monthPeriod, b = trial, len(trial.Items), trial
	what := LoanChanged{Action: ActionExtendTerm, Months: months}
	if holiday > 0 {
		what = LoanChanged{Action: ActionPaymentHoliday, Months: holiday}
	}
	l.changed(now, what, b)
	return nil
}

// restructure lays the principal not yet due, and extra (arrears capitalised), out again on day
// over the items from the current one to the current end and months more, the first holiday
// asking no principal.
func (b *book) restructure(day time.Time, months, holiday int, extra int64) error {
	s := b.at(day)
	c := s.current
	if c < 0 {
		return fmt.Errorf("%w: the loan is past its last payment date", ErrRestructure)
	}
	last := b.end() + months
	if last >= MaxMonthPeriod {
		return fmt.Errorf("%w: the loan would run %d months, more than %d", ErrRestructure, last+1, MaxMonthPeriod)
	}
	b.keepPenalty(day, s)
	b.fold(day)
	dates := PaymentDates(b.terms.IssuedOn, last+1)
	for k := len(b.Items); k <= last; k++ {
		b.Items = append(b.Items, BookItem{PaymentDate: dates[k], PeriodDays: DaysBetween(dates[k-1], dates[k]), AccrualFrom: dates[k-1]})
	}
	cur := &b.Items[c]
	from, residue := c, b.notDue()[c]
	if cur.PaymentDate.Equal(day) {
		from, residue = c+1, b.notDue()[c+1]
	}
	residue += extra
	if residue == 0 {
		return fmt.Errorf("%w: no principal is left to lay out", ErrRestructure)
	}
	r := relay{b: b, items: b.Items[from : last+1], principals: make([]int64, last-from+1), holiday: holiday}
	if from == c {
		r.current = cur
	}
	if b.terms.Type == ScheduleDifferentiated {
		part := residue / int64(len(r.items)-holiday)
		r.layout(residue, func(int, int64) int64 { return part })
		b.Level = part
	} else {
		b.Level = r.annuity(residue, false)
	}
	for j, p := range r.principals {
		it := &r.items[j]
		if from+j == c {
			it.Principal = it.PaidPrincipal + p
			continue
		}
		it.Principal, it.PaidPrincipal, it.Gone = p, 0, false
	}
	for k := last + 1; k < len(b.Items); k++ {
		b.Items[k].Principal, b.Items[k].PaidPrincipal, b.Items[k].Gone = 0, 0, true
	}
	return nil
}

// capKept reports whether every 365-day window that holds day and days before it keeps the
// schedule's interest and service and the penalty accrued to day within the cap: penalty
// already accrued uses a window's room, so a new schedule may not take it (DESIGN §8.3).
// Windows wholly after day hold no penalty yet (ScheduledChargesWithinCap checks them); those
// ending before day do not change. PenaltyLog holds the penalty of the 364 days to day.
func (b *book) capKept(day time.Time) bool {
	limit := exact{whole: int64(b.terms.Amount) / CapShare}
	line := b.chargeLine(b.notDue())
	today := b.dayNumber(day)
	// suffix[i] is the penalty of the days from today-363+i to today.
	suffix := make([]exact, 365)
	daily := make([]exact, 364)
	for _, sp := range b.PenaltyLog {
		first := b.dayNumber(sp.From) - (today - 363)
		for d := max(0, first); d < min(364, first+sp.Days); d++ {
			daily[d] = exact{whole: sp.Daily, frac: sp.DailyFrac}
		}
	}
	for i := 363; i >= 0; i-- {
		suffix[i] = suffix[i+1].add(daily[i])
	}
	var from, to int
	for i := range 364 {
		s := today - 363 + i
		used := line.at(s+365, &to).sub(line.at(s, &from)).add(suffix[i])
		if limit.less(used) {
			return false
		}
	}
	return true
}

// Capitalised is what a restructuring that capitalises the arrears moved into the principal
// laid out again: the overdue principal (already principal: it only moves to later items), and
// the overdue interest, service and penalty (which become principal: ArrearsCapitalisation
// posts them).
type Capitalised struct {
	Principal, Interest, Service, Penalty int64
}

// Charges is the interest, service and penalty capitalised: what the loan's principal grows by.
func (c Capitalised) Charges() int64 { return c.Interest + c.Service + c.Penalty }

// RestructureArrears is a longer term that also capitalises the arrears at now: the overdue
// items are settled by moving their unpaid principal, interest and service, and the penalty
// owed, into the principal laid out again over the current end and months more, as Restructure
// lays it out (an item due today is settled as it stands). Afterwards nothing is overdue. The
// new schedule must fit the term and the Central Bank cap as Restructure's must (the cap's
// limit stays half of the amount issued; the interest on the capitalised charges counts in
// it). It returns what was capitalised and its posting (ArrearsCapitalisation; none when only
// principal was overdue). Nothing overdue is refused (ErrActionAmount): Restructure is the
// action then.
func (l *Loan) RestructureArrears(postingID uuid.UUID, now time.Time, months int) (Capitalised, *Posting, error) {
	b, err := l.openBook()
	if err != nil {
		return Capitalised{}, nil, err
	}
	if !l.writtenOffAt.IsZero() {
		return Capitalised{}, nil, ErrLoanWrittenOff
	}
	if months < 1 {
		return Capitalised{}, nil, fmt.Errorf("%w: extend by 1 month or more", ErrRestructure)
	}
	day := BusinessDate(now)
	trial := &book{BookState: *b.clone(), terms: b.terms, penaltyDaily: b.penaltyDaily}
	c, err := trial.capitaliseArrears(day)
	if err != nil {
		return Capitalised{}, nil, err
	}
	if err := trial.restructure(day, months, 0, c.Principal+c.Charges()); err != nil {
		return Capitalised{}, nil, err
	}
	trial.terms.MonthPeriod = len(trial.Items)
	if !ScheduledChargesWithinCap(trial.terms, trial.schedule()) || !trial.capKept(day) {
		return Capitalised{}, nil, fmt.Errorf("%w: its interest and service would exceed half of the amount within a year (Central Bank cap)", ErrRestructure)
	}
	posting, err := ArrearsCapitalisation(postingID, l.id, now, c)
	if err != nil {
		return Capitalised{}, nil, err
	}
	if posting, err = l.capitalisationOnBooks(postingID, now, c, posting, trial.paidSince(b.chargesPaid())); err != nil {
		return Capitalised{}, nil, err
	}
	l.book, l.monthPeriod = trial, len(trial.Items)
	// Told to the partner as a longer term (the partner's event keeps its actions): its
	// schedule shows the principal laid out again, the capitalised arrears in it.
	l.changed(now, LoanChanged{Action: ActionExtendTerm, Months: months}, trial)
	return c, posting, nil
}

// capitaliseArrears settles the items overdue at day: each keeps the principal it was paid, and
// its charges count as paid; the penalty owed counts as paid. It returns what it took.
func (b *book) capitaliseArrears(day time.Time) (Capitalised, error) {
	s := b.at(day)
	if s.current < 0 {
		return Capitalised{}, fmt.Errorf("%w: the loan is past its last payment date", ErrRestructure)
	}
	b.keepPenalty(day, s)
	b.fold(day)
	var c Capitalised
	interestBefore := b.interestPaid()
	nd := b.notDue()
	var charges int64
	for k := range s.current {
		it := &b.Items[k]
		i, sv := b.charges(it, nd[k])
		c.Principal += it.Principal - it.PaidPrincipal
		if owed := i + sv - it.PaidCharges; owed > 0 {
			charges += owed
			it.PaidCharges = i + sv
		}
	}
	for k := range s.current {
		b.Items[k].Principal = b.Items[k].PaidPrincipal
	}
	c.Interest = b.interestPaid() - interestBefore
	c.Service = charges - c.Interest
	c.Penalty = max(0, s.Penalty)
	b.PenaltyPaid += c.Penalty
	if c.Principal+c.Charges() == 0 {
		return Capitalised{}, fmt.Errorf("%w: nothing is overdue to capitalise", ErrActionAmount)
	}
	return c, nil
}

// ArrearsCapitalisation is the one posting of arrears capitalised: the loan's principal grows
// by the overdue interest, service and penalty (debit LOAN), which are income as if paid, as a
// repayment's are on the cash basis the books keep (credit INTEREST_INCOME, SERVICE_INCOME,
// PENALTY_INCOME). The overdue principal moves within the loan's account: no posting. Nil when
// no charge was capitalised. (The books' accrual basis will change where charges are credited:
// this is the one place.)
func ArrearsCapitalisation(postingID, loanID uuid.UUID, now time.Time, c Capitalised) (*Posting, error) {
	if c.Charges() == 0 {
		return nil, nil
	}
	entries := []Entry{{Account: LoanAccount(AccountLoan, loanID), Debit: c.Charges()}}
	for _, e := range []struct {
		kind   AccountKind
		amount int64
	}{{AccountInterestIncome, c.Interest}, {AccountServiceIncome, c.Service}, {AccountPenaltyIncome, c.Penalty}} {
		if e.amount > 0 {
			entries = append(entries, Entry{Account: BankAccount(e.kind), Credit: e.amount})
		}
	}
	p, err := NewPosting(postingID, PostingArrearsCapitalisation, loanID, now, entries...)
	return &p, err
}

// capitalisationOnBooks is the capitalisation of a loan that keeps accrual books: its charges
// were income as they accrued, so the new principal settles their receivables (the memo of a
// loan in non-accrual, where they become income), and the overdue principal laid out again goes
// back from OVERDUE_PRINCIPAL to LOAN: the cash-basis posting routed as a repayment's credits
// are (BooksState.Repayment), the principal as credited and lent again. posting is the
// cash-basis one (nil: no charges), charges what the capitalisation moved each item's charges
// paid by; a loan without books keeps it.
func (l *Loan) capitalisationOnBooks(postingID uuid.UUID, now time.Time, c Capitalised, posting *Posting, charges []int64) (*Posting, error) {
	if err := l.itemBooks(); err != nil {
		return nil, err
	}
	if l.books == nil || (posting == nil && c.Principal == 0) {
		return posting, nil
	}
	loan := LoanAccount(AccountLoan, l.id)
	cash := []Entry{{Account: loan, Debit: c.Principal}, {Account: loan, Credit: c.Principal}}
	if posting != nil {
		cash = append(cash, posting.Entries...)
	}
	st, entries := l.books.Repayment(l.id, cash, charges)
	var debit int64
	out := entries[:0:0]
	for _, e := range entries { // one debit of LOAN: what it lends again, less what stayed in it
		if e.Account == loan {
			debit += e.Debit - e.Credit
			continue
		}
		out = append(out, e)
	}
	if debit > 0 {
		out = append([]Entry{{Account: loan, Debit: debit}}, out...)
	}
	if len(out) == 0 {
		return nil, nil
	}
	p, err := NewPosting(postingID, PostingArrearsCapitalisation, l.id, now, out...)
	if err != nil {
		return nil, err
	}
	l.books = &st
	return &p, nil
}

// PostingArrearsCapitalisation books a restructuring's capitalised arrears (ArrearsCapitalisation).
var PostingArrearsCapitalisation = PostingKind{"ARREARS_CAPITALISATION"}
