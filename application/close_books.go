package application

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ErrBooksDate means a close was asked for a day the books cannot close.
var ErrBooksDate = errors.New("books: day cannot be closed")

// CloseBooksHandler closes the books (docs/accounting.md): for each time scope (the partners on
// the system time, and each sandbox partner on its own clock), every loan's days up to the day
// asked, in batches of loans, each batch in one transaction; the scope's days are recorded
// closed once every loan is closed through them. A crash leaves the loans closed so far
// closed: the next run goes on from the others. A day closed again posts nothing.
type CloseBooksHandler struct {
	clock ports.Clock
	uow   ports.UnitOfWork
	books ports.BooksRepository
	rules domain.BooksRules
	batch int
}

// closeBatch is how many loans one transaction of the close closes.
const closeBatch = 500

// NewCloseBooksHandler returns the handler on the ports it uses.
func NewCloseBooksHandler(clock ports.Clock, uow ports.UnitOfWork, books ports.BooksRepository, cfg Config) *CloseBooksHandler {
	return &CloseBooksHandler{clock: clock, uow: uow, books: books, rules: cfg.booksRules(), batch: closeBatch}
}

// ScopeClosed is what a close did for one time scope.
type ScopeClosed struct {
	// Scope is "" for the partners on the system time, else the sandbox partner's id.
	Scope    string
	Through  time.Time
	Loans    int
	Postings int
	Duration time.Duration
}

// Close closes every scope's days through day, or through its today when day is later (a day
// not yet begun cannot be closed). A zero day closes through each scope's yesterday: the
// periodic job's close.
func (h *CloseBooksHandler) Close(ctx context.Context, day time.Time) ([]ScopeClosed, error) {
	var out []ScopeClosed
	for _, s := range timeScopes(h.clock) {
		today := domain.BusinessDate(s.now)
		through := today.AddDate(0, 0, -1)
		if !day.IsZero() {
			through = day
			if day.After(today) {
				through = today
			}
		}
		done, err := h.closeScope(ctx, scopeName(s.partners), s.partners, through)
		if err != nil {
			return out, err
		}
		if done != nil {
			out = append(out, *done)
		}
	}
	return out, nil
}

func scopeName(p ports.Partners) string {
	if p.Only != uuid.Nil {
		return p.Only.String()
	}
	return ""
}

// closeScope closes the scope's loans through day; nil when the day was closed already.
func (h *CloseBooksHandler) closeScope(ctx context.Context, scope string, partners ports.Partners, through time.Time) (*ScopeClosed, error) {
	last, closed, err := h.books.LastClosed(ctx, scope)
	if err != nil || closed && !last.Before(through) {
		return nil, err
	}
	start, started, err := h.books.Start(ctx)
	if err != nil {
		return nil, err
	}
	if !started {
		start = through // the first close ever: loans issued before it open their books on it
	}
	if through.Before(start) {
		return nil, fmt.Errorf("%w: the books start on %s", ErrBooksDate, start.Format(domain.DateLayout))
	}
	began := time.Now()
	done := ScopeClosed{Scope: scope, Through: through}
	var after uuid.UUID // the batches walk the loans in id order: each reads on from the last
	for {
		var n int
		err := h.uow.Do(ctx, func(ctx context.Context) error {
			loans, err := h.books.LoansToClose(ctx, partners, through, after, h.batch)
			if err != nil {
				return err
			}
			if n = len(loans); n == 0 {
				return nil
			}
			after = loans[n-1].ID()
			var opened []uuid.UUID
			var postings []domain.Posting
			for _, l := range loans {
				if l.BooksDay().IsZero() {
					opened = append(opened, l.ID())
				}
				ps, err := l.CloseBooks(start, through, h.rules)
				if err != nil {
					return fmt.Errorf("close of loan %s: %w", l.ID(), err)
				}
				postings = append(postings, ps...)
			}
			done.Postings += len(postings)
			return h.books.SaveClosed(ctx, loans, opened, postings)
		})
		if err != nil {
			return nil, err
		}
		// Until a batch finds none: a batch may come back short when another node closed some
		// of its loans meanwhile, with more after them.
		if done.Loans += n; n == 0 {
			break
		}
	}
	done.Duration = time.Since(began)
	from := through
	if closed {
		from = last.AddDate(0, 0, 1)
	}
	var days []time.Time
	for d := from; !d.After(through); d = d.AddDate(0, 0, 1) {
		days = append(days, d)
	}
	err = h.books.MarkClosed(ctx, scope, days, ports.ClosedDay{At: h.clock.Now(uuid.Nil), Loans: done.Loans,
		Postings: done.Postings, Duration: done.Duration})
	return &done, err
}
