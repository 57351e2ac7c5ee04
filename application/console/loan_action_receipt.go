package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// receiptUnused refuses a manual repayment whose receipt or transfer reference paid another
// repayment already (domain.ErrDebitUsed, the approval's own refusal), so the preview and the
// proposal say what the approval would; any other action passes.
func receiptUnused(ctx context.Context, repayments ports.RepaymentRepository, p *domain.Proposal) error {
	if p.Kind != domain.ActionManualRepayment {
		return nil
	}
	used, err := repayments.ReceiptUsed(ctx, p.Action.Channel, p.Ref)
	if err == nil && used {
		err = domain.ErrDebitUsed
	}
	return err
}
