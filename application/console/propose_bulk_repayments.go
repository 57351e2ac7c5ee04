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
	UoW       ports.UnitOfWork
	Preview   *PreviewBulkRepaymentsHandler
	Bulk      ports.BulkRepository
	Proposals ports.ProposalRepository
	Audit     Audit
}

// Handle previews the file again, stores its lines and records the proposal; a file with no
// line to post is refused.
func (h *ProposeBulkRepaymentsHandler) Handle(ctx context.Context, who Actor, file []byte, reason string) (uuid.UUID, error) {
	lines, err := h.Preview.Handle(ctx, who, file)
	if err != nil {
		return uuid.Nil, err
	}
	return proposeBatch(ctx, h.UoW, h.Bulk, h.Proposals, h.Audit, who, domain.BulkRepayments, lines,
		fmt.Errorf("%w: no line of the file may be posted", domain.ErrBulkFile),
		func(ok int) string { return fmt.Sprintf("%d of %d lines: %s", ok, len(lines), reason) })
}
