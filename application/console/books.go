package console

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BooksPage is the console's Books page (docs/console.md, "Books"): the days the closes
// recorded, a day's trial balance, and the open loans' provisions by class.
type BooksPage struct {
	// Closes are the latest days recorded closed, every scope's, the latest first.
	Closes []BookClose
	// Day is the trial balance's day: the one asked for, else the latest day closed; zero
	// before the first close, when there is no trial balance to show.
	Day          time.Time
	TrialBalance application.TrialBalance
	// DayClosed reports whether a scope recorded Day closed: if not, its figures may change.
	DayClosed bool
	// Provisions are the provision table's classes in its order, each with the open loans in
	// it and their provisions as their last close left them; then any class a loan keeps that
	// the table no longer names.
	Provisions     []ProvisionLine
	ProvisionTotal ports.ProvisionSum
}

// BookClose is a day a scope recorded closed; Partner names the sandbox partner whose clock
// the scope is ("" for the system time).
type BookClose struct {
	ports.ScopeClosedDay
	Partner string
}

// ProvisionLine is a provision class with its bounds in days overdue (To < 0: none) and its
// percent (hundredths of a percent, as the table gives them), its loans and their provisions.
// A class the table no longer names is not InTable.
type ProvisionLine struct {
	ports.ProvisionSum
	InTable  bool
	From, To int
	Basis    int64
}

// booksCloses is how many days closed the page lists.
const booksCloses = 60

// BooksHandler reads the Books page and a day's journal; a viewer may read both.
type BooksHandler struct {
	views        ports.BooksViews
	partners     ports.PartnerRepository
	trialBalance *application.TrialBalanceHandler
	journal      *application.JournalHandler
	table        []domain.ProvisionClass
}

// NewBooksHandler returns the handler on the ports and the books' reads it uses: the
// trial balance and the journal are the commands' own (tiyin books trial-balance, journal).
func NewBooksHandler(views ports.BooksViews, partners ports.PartnerRepository, trialBalance *application.TrialBalanceHandler,
	journal *application.JournalHandler, cfg application.Config) *BooksHandler {
	return &BooksHandler{views: views, partners: partners, trialBalance: trialBalance, journal: journal, table: cfg.ProvisionTable()}
}

// Handle reads the page with the trial balance of day (zero: the latest day closed).
func (h *BooksHandler) Handle(ctx context.Context, who Actor, day time.Time) (BooksPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return BooksPage{}, err
	}
	closes, err := h.views.Closes(ctx, booksCloses)
	if err != nil {
		return BooksPage{}, err
	}
	var page BooksPage
	if len(closes) > 0 {
		ps, err := h.partners.List(ctx)
		if err != nil {
			return BooksPage{}, err
		}
		names := make(map[string]string, len(ps))
		for _, p := range ps {
			names[p.ID.String()] = p.Name
		}
		for _, c := range closes {
			page.Closes = append(page.Closes, BookClose{ScopeClosedDay: c, Partner: names[c.Scope]})
		}
	}
	page.Day = day
	if day.IsZero() && len(closes) > 0 {
		page.Day = closes[0].Day
	}
	if !page.Day.IsZero() {
		if page.TrialBalance, err = h.trialBalance.Handle(ctx, page.Day); err != nil {
			return BooksPage{}, err
		}
		page.DayClosed = page.TrialBalance.Closed
		for _, c := range closes {
			page.DayClosed = page.DayClosed || c.Day.Equal(page.Day)
		}
	}
	sums, err := h.views.Provisions(ctx)
	if err != nil {
		return BooksPage{}, err
	}
	page.Provisions, page.ProvisionTotal = h.provisions(sums)
	return page, nil
}

// provisions lays the sums out on the provision table.
func (h *BooksHandler) provisions(sums []ports.ProvisionSum) ([]ProvisionLine, ports.ProvisionSum) {
	by := make(map[string]ports.ProvisionSum, len(sums))
	for _, s := range sums {
		by[s.Class] = s
	}
	total := ports.ProvisionSum{Class: "total"}
	out := make([]ProvisionLine, 0, len(h.table))
	for _, c := range h.table {
		s := by[c.Class]
		s.Class = c.Class
		delete(by, c.Class)
		out = append(out, ProvisionLine{ProvisionSum: s, InTable: true, From: c.From, To: c.To, Basis: c.Basis})
	}
	for _, s := range sums {
		if _, left := by[s.Class]; left {
			out = append(out, ProvisionLine{ProvisionSum: s})
		}
	}
	for _, l := range out {
		total.Loans += l.Loans
		total.Provision += l.Provision
	}
	return out, total
}

// Journal reads the day's journal, as tiyin books journal prints it.
func (h *BooksHandler) Journal(ctx context.Context, who Actor, day time.Time) ([]application.JournalEntry, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.journal.Handle(ctx, day)
}
