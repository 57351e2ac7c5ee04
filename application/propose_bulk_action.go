package application

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeBulkActionHandler proposes one loan action on a queue's loans as one proposal
// (BULK_LOAN_ACTIONS); a second officer approves it (DecideProposalHandler), which applies the
// action to each loan the preview found OK, in the approval's transaction.
type ProposeBulkActionHandler struct {
	uow       ports.UnitOfWork
	preview   *PreviewBulkActionHandler
	bulk      ports.BulkRepository
	proposals ports.ProposalRepository
	audit     audit
}

// NewProposeBulkActionHandler returns the handler on the ports it uses.
func NewProposeBulkActionHandler(clock ports.Clock, uow ports.UnitOfWork, preview *PreviewBulkActionHandler, bulk ports.BulkRepository,
	proposals ports.ProposalRepository, log ports.AuditLog) *ProposeBulkActionHandler {
	return &ProposeBulkActionHandler{uow: uow, preview: preview, bulk: bulk, proposals: proposals, audit: audit{clock: clock, log: log}}
}

// Handle previews the action again, stores its lines and records the proposal; a filter with
// no loan the action applies to is refused.
func (h *ProposeBulkActionHandler) Handle(ctx context.Context, who Actor, cmd BulkAction, reason string) (uuid.UUID, error) {
	lines, err := h.preview.Handle(ctx, who, cmd)
	if err != nil {
		return uuid.Nil, err
	}
	ok := 0
	for _, l := range lines {
		if l.OK() {
			ok++
		}
	}
	if ok == 0 {
		return uuid.Nil, fmt.Errorf("%w: the action applies to none of its loans", domain.ErrBulkAction)
	}
	batch := newID()
	p, err := domain.NewBulkProposal(newID(), domain.BulkLoanActions, batch, fmt.Sprintf("%s on %d of %d loans: %s", cmd.Kind, ok, len(lines), reason),
		who.ID, h.audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.bulk.AddLines(ctx, batch, lines); err != nil {
			return err
		}
		return recordProposal(ctx, h.uow, h.proposals, h.audit, who, uuid.Nil, p)
	})
	return p.ID, err
}
