package domain

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// The postings of the books.
var (
	// PostingClose is a loan's close of a day; PostingOpening its first close when the loan was
	// on the books before they kept accruals (issued before the first day closed).
	PostingClose   = PostingKind{"CLOSE"}
	PostingOpening = PostingKind{"OPENING"}
	// PostingWaiver reverses the accrual an operator's waiver forgave.
	PostingWaiver = PostingKind{"WAIVER"}
)

// booksNamespace names the close's postings: a loan's close of a day has one id, whoever runs
// it, so a close posted twice is refused by the ledger rather than counted twice.
var booksNamespace = uuid.MustParse("5d1b0c5e-51b0-4c5e-8a51-b0c5e51b0c5e")

// ClosePostingID is the id of the loan's close posting of day.
func ClosePostingID(loanID uuid.UUID, day time.Time) uuid.UUID {
	return uuid.NewSHA1(booksNamespace, []byte(loanID.String()+"/"+day.Format(DateLayout)))
}

// CloseAt is the moment a day's close is dated: the day's last microsecond in Tashkent, so that
// a report of the day includes it.
func CloseAt(day time.Time) time.Time {
	_, end := BusinessDay(day)
	return end.Add(-time.Microsecond)
}

func (l *Loan) booksCopy() *BooksState {
	if l.books == nil {
		return nil
	}
	b := *l.books
	b.Items = slices.Clone(b.Items)
	return &b
}

// Books returns the loan's standing in the accrual books; false before its first close.
func (l *Loan) Books() (BooksState, bool) {
	if l.books == nil {
		return BooksState{}, false
	}
	return *l.booksCopy(), true
}

// BooksOpen reports whether the close still visits the loan: until the close of the day after it
// was paid off or written off (a close of that day run before the payment is then caught up); a
// loan paid off before its first close never (a write-off before it opens the loan's books).
func (l *Loan) BooksOpen() bool {
	end := l.closedAt
	if end.IsZero() {
		end = l.writtenOffAt
	}
	if end.IsZero() {
		return true
	}
	return l.books != nil && !l.books.Day.After(BusinessDate(end))
}

// BooksDay is the last day the loan's books were closed; zero before its first close.
func (l *Loan) BooksDay() time.Time {
	if l.books == nil {
		return time.Time{}
	}
	return l.books.Day
}

// CloseBooks closes the loan's books for each day after its last close through `through`, in
// day order, and returns a posting for each day that posted anything. A loan without books
// yet opens them: from its issue date, or, issued before start (the first day the books ever
// closed), with one opening entry on start that brings it to what the rules say for that day
// (its charges paid so far were income when paid). A loan paid off before its first close opens
// none; one written off before it opened them at the write-off (WriteOff).
func (l *Loan) CloseBooks(start, through time.Time, rules BooksRules) ([]Posting, error) {
	var st BooksState
	var from time.Time
	kind := PostingClose
	if err := l.itemBooks(); err != nil {
		return nil, err
	}
	if l.books != nil {
		st, from = *l.books, l.books.Day.AddDate(0, 0, 1)
	} else {
		if !l.BooksOpen() {
			return nil, nil
		}
		var err error
		if st, err = l.OpeningBooks(); err != nil {
			return nil, err
		}
		from = BusinessDate(l.issuedAt)
		if from.Before(start) {
			from, kind = start, PostingOpening
		}
	}
	var out []Posting
	for day := from; !day.After(through) && l.BooksOpenAfter(st); day = day.AddDate(0, 0, 1) {
		next, entries, err := CloseDay(l, day, st, rules)
		if err != nil {
			return nil, err
		}
		st = next
		if len(entries) > 0 {
			p, err := NewPosting(ClosePostingID(l.id, day), kind, l.id, CloseAt(day), entries...)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		kind = PostingClose
	}
	if !st.Day.IsZero() {
		l.books = &st
	}
	return out, nil
}

// booksAtWriteOff opens the books of a loan written off on day before its first close (issued
// since the last close, or before the books ever closed) as books kept from its issue would
// stand after the close of the day before, the state's Day: its charges paid or waived so far
// taken in (OpeningBooks), then each item's interest and service accrued through the day before
// taken in as a close in non-accrual takes it (the loan is written off): what it has not paid on
// the non-accrual memo (never income on the cash basis, so nothing is reversed), and interest it
// paid for later days moved out of income to the advance, as a first close's opening moves it.
// No close classified it: it has no provision, and its overdue principal is still on LOAN.
func (l *Loan) booksAtWriteOff(day time.Time) (BooksState, []Entry, error) {
	st, err := l.OpeningBooks()
	if err != nil {
		return st, nil, err
	}
	b, err := l.repaymentBook()
	if err != nil {
		return st, nil, err
	}
	st.Day, st.NonAccrual = day.AddDate(0, 0, -1), true
	items, _ := b.accruedItems(st.Day)
	st.ownItems(len(items))
	e := entries{loan: l.id}
	e.accrueItems(&st, items)
	return st, e.out, nil
}

// BooksOpenAfter reports whether a loan whose books stand at st still needs a close.
func (l *Loan) BooksOpenAfter(st BooksState) bool {
	end := l.closedAt
	if end.IsZero() {
		end = l.writtenOffAt
	}
	return end.IsZero() || st.Day.IsZero() || !st.Day.After(BusinessDate(end))
}

// booksPosting replaces a posting's entries by the accrual basis's when the loan keeps books:
// fn turns its books and the cash basis's entries into the new ones.
func (l *Loan) booksPosting(p Posting, fn func(BooksState, []Entry) (BooksState, []Entry)) (Posting, error) {
	if err := l.itemBooks(); err != nil || l.books == nil {
		return p, err
	}
	st, entries := fn(*l.books, p.Entries)
	np, err := NewPosting(p.ID, p.Kind, p.Ref, p.At, entries...)
	if err != nil {
		return Posting{}, err
	}
	l.books = &st
	return np, nil
}

// waiverPosting is the books' reversal of a waiver's accrual (charges: what it forgave of each
// item's charges, as BooksState.Waive takes them); nil when the loan keeps no books yet (a cash
// basis books nothing for a waiver) or nothing was accrued.
func (l *Loan) waiverPosting(id uuid.UUID, at time.Time, charges []int64, penalty int64) (*Posting, error) {
	if err := l.itemBooks(); err != nil || l.books == nil {
		return nil, err
	}
	st, entries := l.books.Waive(l.id, charges, penalty)
	l.books = &st
	if len(entries) == 0 {
		return nil, nil
	}
	p, err := NewPosting(id, PostingWaiver, l.id, at, entries...)
	return &p, err
}

// itemBooks lays books stored before they kept interest and service per schedule item on the
// loan's items (BooksState.layOnItems); books that keep them, or none, are left as they are.
func (l *Loan) itemBooks() error {
	s := l.books
	if s == nil || len(s.Items) > 0 || s.TakenInterest+s.TakenService+s.InterestAdvance+s.ServiceAdvance == 0 {
		return nil
	}
	b, err := l.repaymentBook()
	if err != nil {
		return err
	}
	st := *s
	st.layOnItems(b)
	l.books = &st
	return nil
}
