package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// JournalHandler reads a day's journal.
type JournalHandler struct {
	Books  ports.BooksRepository
	Config Config
}

// JournalEntry is a journal line with its general ledger account.
type JournalEntry struct {
	ports.JournalLine
	GL string
}

// Handle lists the day's entries in posting order.
func (h *JournalHandler) Handle(ctx context.Context, day time.Time) ([]JournalEntry, error) {
	lines, err := h.Books.Journal(ctx, day)
	if err != nil {
		return nil, err
	}
	out, chart := make([]JournalEntry, 0, len(lines)), h.Config.chart()
	for _, l := range lines {
		out = append(out, JournalEntry{JournalLine: l, GL: chart.GL(l.Account.Kind)})
	}
	return out, nil
}

// GeneralLedger is the day's posts to the bank's general ledger, by sequence, with core
// banking's acknowledgements.
func (h *JournalHandler) GeneralLedger(ctx context.Context, day time.Time) ([]ports.GLPost, error) {
	return h.Books.GLPosts(ctx, day)
}
