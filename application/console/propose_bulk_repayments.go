package console

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeBulkRepaymentsHandler proposes a previewed file of manual repayments as one
// proposal (BULK_REPAYMENTS); a second officer approves it (DecideProposalHandler), which posts
// each line the preview found OK as a manual repayment, in the approval's transaction.
type ProposeBulkRepaymentsHandler struct {
	uow       ports.UnitOfWork
	preview   *PreviewBulkRepaymentsHandler
	bulk      ports.BulkRepository
	proposals ports.ProposalRepository
	audit     audit
}

// NewProposeBulkRepaymentsHandler returns the handler on the ports it uses.
func NewProposeBulkRepaymentsHandler(clock ports.Clock, uow ports.UnitOfWork, preview *PreviewBulkRepaymentsHandler, bulk ports.BulkRepository,
	proposals ports.ProposalRepository, log ports.AuditLog) *ProposeBulkRepaymentsHandler {
	return &ProposeBulkRepaymentsHandler{uow: uow, preview: preview, bulk: bulk, proposals: proposals, audit: audit{clock: clock, log: log}}
}

// Handle previews the file again, stores its lines and records the proposal; a file with no
// line to post is refused.
func (h *ProposeBulkRepaymentsHandler) Handle(ctx context.Context, who Actor, file []byte, reason string) (uuid.UUID, error) {
	lines, err := h.preview.Handle(ctx, who, file)
	if err != nil {
		return uuid.Nil, err
	}
	return proposeBatch(ctx, h.uow, h.bulk, h.proposals, h.audit, who, domain.BulkRepayments, lines,
		fmt.Errorf("%w: no line of the file may be posted", domain.ErrBulkFile),
		func(ok int) string { return fmt.Sprintf("%d of %d lines: %s", ok, len(lines), reason) })
}
