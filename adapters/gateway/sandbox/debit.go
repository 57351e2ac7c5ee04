package sandbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// DebitUnknownPrefix starts every debitId the sandbox network does not know.
const DebitUnknownPrefix = "FAIL"

// LookupDebit implements ports.Processing: a debitId starting FAIL is unknown; any other is a
// successful debit of the amount asked, on the network asked, which the journal records at
// the time asked (the first time it is asked for).
func (p *Processing) LookupDebit(ctx context.Context, q ports.DebitQuery) (domain.Debit, error) {
	if strings.HasPrefix(q.DebitID, DebitUnknownPrefix) {
		return domain.Debit{}, fmt.Errorf("%w: debit %s is unknown to %s", domain.ErrDebitRejected, q.DebitID, q.Network)
	}
	line := domain.StatementLine{ID: q.DebitID, Kind: domain.LineDebit, Amount: q.Amount, At: q.At, Status: domain.LineDone}
	if err := p.record(ctx, q.Network, line, ""); err != nil {
		return domain.Debit{}, fmt.Errorf("%w: %w", ports.ErrGatewayTransient, err)
	}
	return domain.Debit{ID: q.DebitID, Network: q.Network, Amount: q.Amount, Succeeded: true}, nil
}
