package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BulkPage is a batch proposed at once (a repayments file, or a queue's waiver or write-off):
// its proposal and its lines as previewed.
type BulkPage struct {
	Proposal *domain.Proposal
	Status   domain.ProposalStatus
	Lines    []domain.BulkLine
}

// BulkHandler reads a BULK_REPAYMENTS proposal's page.
type BulkHandler struct {
	Clock     ports.Clock
	Proposals ports.ProposalRepository
	Bulk      ports.BulkRepository
}

// Handle reads proposal id, which must be a batch's.
func (h *BulkHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (BulkPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return BulkPage{}, err
	}
	p, err := h.Proposals.Get(ctx, id)
	if err != nil {
		return BulkPage{}, err
	}
	if !p.Kind.IsBulk() {
		return BulkPage{}, domain.ErrProposalNotFound
	}
	lines, err := h.Bulk.Lines(ctx, p.ObjectID)
	return BulkPage{Proposal: p, Status: p.StatusAt(h.Clock.Now(uuid.Nil)), Lines: lines}, err
}
