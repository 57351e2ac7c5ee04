package console

import (
	"context"
	"fmt"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BulkAction is one loan action for every loan a collections queue's filter picks: a waiver of
// all the penalty or overdue interest owed, or a write-off.
type BulkAction struct {
	Kind domain.ProposalKind
	// Bucket is the queue's bucket (its index; -1: every overdue loan).
	Bucket int
}

// PreviewBulkActionHandler says, for each loan of the queue a filter picks (up to 1000, the
// longest overdue first, each on its partner's clock), what the action would do to it or why
// it refuses (nothing to waive, written off already).
type PreviewBulkActionHandler struct {
	clock       ports.Clock
	collections ports.CollectionsRepository
	loans       ports.LoanRepository
	buckets     domain.Buckets
}

// NewPreviewBulkActionHandler returns the handler on the ports it uses.
func NewPreviewBulkActionHandler(clock ports.Clock, collections ports.CollectionsRepository, loans ports.LoanRepository,
	cfg application.Config) *PreviewBulkActionHandler {
	return &PreviewBulkActionHandler{clock: clock, collections: collections, loans: loans, buckets: cfg.Collections.WithDefaults().Buckets}
}

// bulkActionLoans bounds the loans one bulk action takes (one approval applies it in one
// transaction).
const bulkActionLoans = 1000

// Handle previews the action on the filter's loans.
func (h *PreviewBulkActionHandler) Handle(ctx context.Context, who Actor, cmd BulkAction) ([]domain.BulkLine, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return nil, err
	}
	if cmd.Bucket >= len(h.buckets) || cmd.Bucket < -1 {
		return nil, fmt.Errorf("%w: no bucket %d", ports.ErrBadList, cmd.Bucket)
	}
	q := ports.QueueQuery{Scopes: application.QueueScopes(h.clock), MinDays: 1, Limit: 200}
	if cmd.Bucket >= 0 {
		q.MinDays, q.MaxDays = h.buckets[cmd.Bucket].From, h.buckets[cmd.Bucket].To
	}
	var lines []domain.BulkLine
	for len(lines) < bulkActionLoans {
		rows, err := h.collections.Queue(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if len(lines) == bulkActionLoans {
				break
			}
			loan, err := h.loans.Get(ctx, r.LoanID)
			if err != nil {
				return nil, err
			}
			l, err := domain.BulkActionLine(len(lines)+1, cmd.Kind, loan)
			if err != nil {
				return nil, err
			}
			now := h.clock.Now(loan.PartnerID())
			p, err := l.Proposal("preview", who.ID, now)
			if err == nil {
				_, err = p.ApplyTo(loan, application.NewID(), application.NewID(), now)
			}
			if err != nil {
				l.Refusal = err.Error()
			}
			lines = append(lines, l)
		}
		if len(rows) < q.Limit {
			break
		}
		q.After = &rows[len(rows)-1]
	}
	if len(lines) == 0 {
		return nil, domain.ErrBulkAction
	}
	return lines, nil
}
