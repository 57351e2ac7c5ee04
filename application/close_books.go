package application

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
//
// Each day closed is then posted to the bank's general ledger (ports.GeneralLedger), after it
// is recorded closed and outside any transaction, in day order: the day's journal summed by GL
// account is recorded first (a day's sequence 1, or the next sequence with what was not posted
// yet), then sent, then its acknowledgement recorded. A post that failed, or whose outcome is
// unknown, stays unacknowledged and is sent again, with the same lines and key, by the next
// run, before any later day; a closed day left with no post recorded (a run stopped or failed
// first, or held back behind it) is posted by the next run too (postToGL).
//
// Last, each day the close closed, or whose post it got acknowledged, that is over is proved
// (the books' daily proof, ReconcileDayHandler with domain.SourceBooks): its sub-ledger against
// its control accounts, and its posts against core banking's acknowledgements. A difference is
// recorded as a reconciliation break; nothing is adjusted.
type CloseBooksHandler struct {
	Clock     ports.Clock
	UoW       ports.UnitOfWork
	Books     ports.BooksRepository
	GL        ports.GeneralLedger
	Reconcile *ReconcileDayHandler
	// OpsLog tells the on-call engineer of a post the general ledger did not acknowledge.
	OpsLog ports.OpsLog
	Config Config
}

// closeBatch is how many loans one transaction of the close closes.
const closeBatch = 500

// ErrGLNotAcknowledged means a closed day's journal was not acknowledged by the general
// ledger: the day stays closed, and the next close posts it again.
var ErrGLNotAcknowledged = errors.New("books: the general ledger did not acknowledge the journal")

// ScopeClosed is what a close did for one time scope.
type ScopeClosed struct {
	// Scope is "" for the partners on the system time, else the sandbox partner's id.
	Scope    string
	Through  time.Time
	Loans    int
	Postings int
	Duration time.Duration
}

// BooksClosed is what a close did: each time scope's close, and the daily proof of each day it
// posted, in day order.
type BooksClosed struct {
	Scopes []ScopeClosed
	Proofs []DayProof
}

// DayProof is the books' daily proof of a day a close posted (docs/accounting.md, The daily
// proof).
type DayProof struct {
	Day time.Time
	// Pending means the day is not over yet (a close run for today): a later close proves it.
	Pending bool
	// Breaks counts the breaks the proof found, by kind (domain.BreakSubledgerDiffers,
	// domain.BreakGLAckDiffers): none when the books agree; New, those no earlier proof of the
	// day had recorded.
	Breaks map[domain.BreakKind]int
	New    int
}

// Found is how many breaks the proof found.
func (p DayProof) Found() int {
	n := 0
	for _, k := range p.Breaks {
		n += k
	}
	return n
}

// Close is CloseAndProve's scopes.
func (h *CloseBooksHandler) Close(ctx context.Context, day time.Time) ([]ScopeClosed, error) {
	c, err := h.CloseAndProve(ctx, day)
	return c.Scopes, err
}

// CloseAndProve closes every scope's days through day, or through its today when day is later
// (a day not yet begun cannot be closed). A zero day closes through each scope's yesterday: the
// periodic job's close. The days closed are then posted to the general ledger, with what earlier
// runs left unacknowledged or unposted; a post that fails is ErrGLNotAcknowledged, after every
// scope is closed. Then each of those days that is over is proved (prove), and its proof
// reported; a break the proof finds is recorded, not an error.
func (h *CloseBooksHandler) CloseAndProve(ctx context.Context, day time.Time) (BooksClosed, error) {
	var out BooksClosed
	var days []time.Time
	for _, s := range timeScopes(h.Clock) {
		today := domain.BusinessDate(s.now)
		through := today.AddDate(0, 0, -1)
		if !day.IsZero() {
			through = day
			if day.After(today) {
				through = today
			}
		}
		done, closed, err := h.closeScope(ctx, scopeName(s.partners), s.partners, through)
		if err != nil {
			return out, err
		}
		if done != nil {
			out.Scopes = append(out.Scopes, *done)
		}
		days = append(days, closed...)
	}
	posted, err := h.postToGL(ctx, days)
	proofs, perr := h.prove(ctx, posted)
	out.Proofs = proofs
	return out, errors.Join(err, perr)
}

// prove runs the books' daily proof of each of days that is over (on the latest clock: in the
// sandbox a partner's day closed on its own clock), once each, in day order, and reports each,
// a day not over yet as pending. A day not over yet (a close run for today) is proved by a later
// close, which posts it again, or by the daily reconciliation. A proof that cannot run does not
// stop the others.
func (h *CloseBooksHandler) prove(ctx context.Context, days []time.Time) ([]DayProof, error) {
	days = slices.Clone(days)
	slices.SortFunc(days, time.Time.Compare)
	days = slices.CompactFunc(days, time.Time.Equal)
	now := LatestNow(h.Clock)
	var out []DayProof
	var errs []error
	for _, d := range days {
		if !domain.DayClosed(d, now) {
			out = append(out, DayProof{Day: d, Pending: true})
			continue
		}
		res, err := h.Reconcile.Handle(ctx, ReconcileDay{Day: d, Source: domain.SourceBooks})
		if err != nil {
			errs = append(errs, fmt.Errorf("books: the proof of %s: %w", d.Format(domain.DateLayout), err))
			continue
		}
		out = append(out, DayProof{Day: d, Breaks: res.Breaks, New: res.New})
	}
	return out, errors.Join(errs...)
}

func scopeName(p ports.Partners) string {
	if p.Only != uuid.Nil {
		return p.Only.String()
	}
	return ""
}

// closeScope closes the scope's loans through day; nil when the day was closed already. The
// days it returns are those the general ledger must be told of: the days it closed, and the
// scope's last closed day before them (a close run for today, then a payment that day).
func (h *CloseBooksHandler) closeScope(ctx context.Context, scope string, partners ports.Partners, through time.Time) (*ScopeClosed, []time.Time, error) {
	rules := h.Config.booksRules()
	last, closed, err := h.Books.LastClosed(ctx, scope)
	if err != nil || closed && !last.Before(through) {
		return nil, nil, err
	}
	start, started, err := h.Books.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !started {
		start = through // the first close ever: loans issued before it open their books on it
	}
	if through.Before(start) {
		return nil, nil, fmt.Errorf("%w: the books start on %s", ErrBooksDate, start.Format(domain.DateLayout))
	}
	began := time.Now()
	done := ScopeClosed{Scope: scope, Through: through}
	var after uuid.UUID // the batches walk the loans in id order: each reads on from the last
	for {
		var n int
		err := h.UoW.Do(ctx, func(ctx context.Context) error {
			loans, err := h.Books.LoansToClose(ctx, partners, through, after, closeBatch)
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
				ps, err := l.CloseBooks(start, through, rules)
				if err != nil {
					return fmt.Errorf("close of loan %s: %w", l.ID(), err)
				}
				postings = append(postings, ps...)
			}
			done.Postings += len(postings)
			return h.Books.SaveClosed(ctx, loans, opened, postings)
		})
		if err != nil {
			return nil, nil, err
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
	err = h.Books.MarkClosed(ctx, scope, days, ports.ClosedDay{At: h.Clock.Now(uuid.Nil), Loans: done.Loans,
		Postings: done.Postings, Duration: done.Duration})
	if err != nil {
		return nil, nil, err
	}
	if closed {
		days = append([]time.Time{last}, days...)
	}
	return &done, days, nil
}

// postToGL posts to the general ledger, in day order, every day it has to: those whose posts
// earlier runs left unacknowledged (sent again, the same, by sequence), the closed days with no
// post recorded (ports.BooksRepository.UnpostedClosedDays: a run that stopped or failed before
// it recorded them), and days, the days this close closed or must post again; of each of the
// last two, the journal not posted yet. Each post is recorded in a transaction of its own
// before it is sent, sent outside any, and acknowledged in another. A day not acknowledged
// holds the later days back, so that the general ledger receives the days in order: they are
// closed, not posted, and the next close, or the next run of the daily job, posts them after
// it. It returns the days to prove: days, and those whose posts were acknowledged now (a post
// that fails again leaves its day to the run that gets it acknowledged, so that a general
// ledger down for hours is not proved every minute).
func (h *CloseBooksHandler) postToGL(ctx context.Context, days []time.Time) ([]time.Time, error) {
	pending, err := h.Books.UnacknowledgedGLPosts(ctx)
	if err != nil {
		return nil, err
	}
	unposted, err := h.Books.UnpostedClosedDays(ctx)
	if err != nil {
		return nil, err
	}
	key := func(d time.Time) string { return d.Format(domain.DateLayout) }
	resend := map[string][]ports.GLPost{} // by day, by sequence
	var order []time.Time
	for _, p := range pending {
		resend[key(p.Journal.Day)] = append(resend[key(p.Journal.Day)], p)
		order = append(order, p.Journal.Day)
	}
	post := map[string]bool{} // the days whose journal not posted yet is posted
	for _, d := range append(slices.Clone(unposted), days...) {
		post[key(d)] = true
		order = append(order, d)
	}
	slices.SortFunc(order, time.Time.Compare)
	order = slices.CompactFunc(order, func(a, b time.Time) bool { return key(a) == key(b) })
	dealt := slices.Clone(days)
	for _, d := range order {
		acknowledged := false
		for _, p := range resend[key(d)] {
			if err := h.sendToGL(ctx, p.Journal, p.Attempts+1); err != nil {
				return dealt, err
			}
			acknowledged = true
		}
		if post[key(d)] {
			var j ports.GLJournal
			var added bool
			err := h.UoW.Do(ctx, func(ctx context.Context) error {
				var err error
				if j, err = h.nextGLJournal(ctx, d); err != nil || j.Sequence == 0 {
					return err
				}
				added, err = h.Books.AddGLPost(ctx, ports.GLPost{Journal: j, CreatedAt: h.Clock.Now(uuid.Nil)})
				return err
			})
			if err != nil {
				return dealt, err
			}
			if added { // else nothing new, or another node recorded it and sends it
				if err := h.sendToGL(ctx, j, 1); err != nil {
					return dealt, err
				}
				acknowledged = true
			}
		}
		if acknowledged {
			dealt = append(dealt, d)
		}
	}
	return dealt, nil
}

// nextGLJournal is the day's journal not posted yet, summed by GL account, as the day's next
// sequence; a zero sequence when there is nothing to post (a day posted already, and no entry
// dated it since). A day's first post is made even of a day without entries, so that every
// closed day is acknowledged.
func (h *CloseBooksHandler) nextGLJournal(ctx context.Context, day time.Time) (ports.GLJournal, error) {
	posts, err := h.Books.GLPosts(ctx, day)
	if err != nil {
		return ports.GLJournal{}, err
	}
	tb, err := h.Books.TrialBalance(ctx, day)
	if err != nil {
		return ports.GLJournal{}, err
	}
	type sums struct{ debits, credits int64 }
	by, chart := map[string]sums{}, h.Config.chart()
	for _, l := range tb {
		gl := chart.GL(l.Kind)
		s := by[gl]
		by[gl] = sums{s.debits + l.Debits, s.credits + l.Credits}
	}
	for _, p := range posts {
		for _, l := range p.Journal.Lines {
			s := by[l.GL]
			by[l.GL] = sums{s.debits - l.Debits, s.credits - l.Credits}
		}
	}
	j := ports.GLJournal{Day: day, Sequence: len(posts) + 1}
	for gl, s := range by {
		if s.debits < 0 || s.credits < 0 {
			return ports.GLJournal{}, fmt.Errorf("books: the journal of %s has less on GL %s than was posted to the general ledger",
				day.Format(domain.DateLayout), gl)
		}
		if s.debits != 0 || s.credits != 0 {
			j.Lines = append(j.Lines, ports.GLLine{GL: gl, Debits: s.debits, Credits: s.credits})
		}
	}
	if len(posts) > 0 && len(j.Lines) == 0 {
		return ports.GLJournal{}, nil
	}
	slices.SortFunc(j.Lines, func(a, b ports.GLLine) int { return strings.Compare(a.GL, b.GL) })
	j.IdempotencyKey = ports.GLKey(day, j.Sequence)
	return j, nil
}

// sendToGL posts j and records the outcome: its acknowledgement, or a failed attempt (the
// attempt-th), which the on-call engineer is told of. It is not final: the next close sends it
// again.
func (h *CloseBooksHandler) sendToGL(ctx context.Context, j ports.GLJournal, attempt int) error {
	ack, err := h.GL.PostJournal(ctx, j)
	if err != nil {
		orNoOpsLog(h.OpsLog).Failure(ctx, ports.Failure{Event: "books.gl_post_failed", Object: "books_day:" + j.Day.Format(domain.DateLayout),
			Detail: fmt.Sprintf("sequence %d", j.Sequence), Target: "general_ledger", Attempt: attempt, Reason: err.Error()})
		failed := fmt.Errorf("%w: %s: %w", ErrGLNotAcknowledged, j.IdempotencyKey, err)
		return errors.Join(failed, h.UoW.Do(ctx, func(ctx context.Context) error {
			return h.Books.FailGLPost(ctx, j.Day, j.Sequence, err.Error())
		}))
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Books.AcknowledgeGLPost(ctx, j.Day, j.Sequence, ack, h.Clock.Now(uuid.Nil))
	})
}
