package console

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeBulkActionHandler proposes one loan action on a queue's loans as one proposal
// (BULK_LOAN_ACTIONS); a second officer approves it (DecideProposalHandler), which applies the
// action to each loan the preview found OK, in the approval's transaction.
type ProposeBulkActionHandler struct {
	UoW       ports.UnitOfWork
	Preview   *PreviewBulkActionHandler
	Bulk      ports.BulkRepository
	Proposals ports.ProposalRepository
	Audit     Audit
}

// Handle previews the action again, stores its lines and records the proposal; a filter with
// no loan the action applies to is refused.
func (h *ProposeBulkActionHandler) Handle(ctx context.Context, who Actor, cmd BulkAction, reason string) (uuid.UUID, error) {
	lines, err := h.Preview.Handle(ctx, who, cmd)
	if err != nil {
		return uuid.Nil, err
	}
	return proposeBatch(ctx, h.UoW, h.Bulk, h.Proposals, h.Audit, who, domain.BulkLoanActions, lines,
		fmt.Errorf("%w: the action applies to none of its loans", domain.ErrBulkAction),
		func(ok int) string { return fmt.Sprintf("%s on %d of %d loans: %s", cmd.Kind, ok, len(lines), reason) })
}

// proposeBatch stores a previewed batch's lines and records its proposal, for a second
// officer, in one transaction; none is the refusal of a batch with no line the preview found OK,
// and note says the proposal's note from how many lines are.
func proposeBatch(ctx context.Context, uow ports.UnitOfWork, bulk ports.BulkRepository, proposals ports.ProposalRepository, a Audit,
	who Actor, kind domain.ProposalKind, lines []domain.BulkLine, none error, note func(ok int) string) (uuid.UUID, error) {
	ok := 0
	for _, l := range lines {
		if l.OK() {
			ok++
		}
	}
	if ok == 0 {
		return uuid.Nil, none
	}
	batch := application.NewID()
	p, err := domain.NewBulkProposal(application.NewID(), kind, batch, note(ok), who.ID, a.now())
	if err != nil {
		return uuid.Nil, err
	}
	err = uow.Do(ctx, func(ctx context.Context) error {
		if err := bulk.AddLines(ctx, batch, lines); err != nil {
			return err
		}
		// A batch is of many loans, often of several partners: dated on the server's clock.
		return storeProposal(ctx, proposals, a, who, uuid.Nil, p)
	})
	return p.ID, err
}
