package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// JournalHandler reads a day's journal.
type JournalHandler struct {
	books ports.BooksRepository
	chart domain.Chart
}

// NewJournalHandler returns the handler on the ports it uses.
func NewJournalHandler(books ports.BooksRepository, cfg Config) *JournalHandler {
	return &JournalHandler{books: books, chart: cfg.chart()}
}

// JournalEntry is a journal line with its general ledger account.
type JournalEntry struct {
	ports.JournalLine
	GL string
}

// Handle lists the day's entries in posting order.
func (h *JournalHandler) Handle(ctx context.Context, day time.Time) ([]JournalEntry, error) {
	lines, err := h.books.Journal(ctx, day)
	if err != nil {
		return nil, err
	}
	out := make([]JournalEntry, 0, len(lines))
	for _, l := range lines {
		out = append(out, JournalEntry{JournalLine: l, GL: h.chart.GL(l.Account.Kind)})
	}
	return out, nil
}

// GeneralLedger is the day's posts to the bank's general ledger, by sequence, with core
// banking's acknowledgements.
func (h *JournalHandler) GeneralLedger(ctx context.Context, day time.Time) ([]ports.GLPost, error) {
	return h.books.GLPosts(ctx, day)
}
