package porttest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// GeneralLedgerCases are journals the general ledger accepts. The suite sets each journal's
// sequence, when it is 0, to a fresh one (so that a run never meets a key an earlier run
// posted), and its idempotency key.
type GeneralLedgerCases struct {
	// Journal is a balanced day's journal with at least two lines.
	Journal ports.GLJournal
}

// RunGeneralLedger checks a GeneralLedger adapter against the port's contract: a journal is
// acknowledged with its totals, the same journal posted again gets the same acknowledgement,
// and a different journal under the same day and sequence is refused.
func RunGeneralLedger(t *testing.T, newAdapter Constructor[ports.GeneralLedger], c GeneralLedgerCases) {
	fresh := func() ports.GLJournal {
		j := c.Journal
		j.Lines = slices.Clone(j.Lines)
		if j.Sequence == 0 {
			j.Sequence = int(time.Now().UnixNano()%1_000_000_000) + 1
		}
		j.IdempotencyKey = ports.GLKey(j.Day, j.Sequence)
		return j
	}
	t.Run("a journal is acknowledged with its totals, the same journal again with the same acknowledgement", func(t *testing.T) {
		gl, ctx, j := healthy(t, newAdapter), context.Background(), fresh()
		ack, err := gl.PostJournal(ctx, j)
		if totals := j.Totals(); err != nil || ack.Ref == "" || ack.Debits != totals.Debits || ack.Credits != totals.Credits {
			t.Fatalf("PostJournal: %+v, %v; want a reference and the journal's totals %+v", ack, err, totals)
		}
		if again, err := gl.PostJournal(ctx, j); err != nil || again != ack {
			t.Fatalf("PostJournal with the same key and lines: %+v, %v; want %+v", again, err, ack)
		}
	})
	t.Run("a different journal under a key already posted is ErrGatewayFailed", func(t *testing.T) {
		gl, ctx, j := healthy(t, newAdapter), context.Background(), fresh()
		ack, err := gl.PostJournal(ctx, j)
		if err != nil {
			t.Fatalf("PostJournal: %v", err)
		}
		other := j
		other.Lines = slices.Clone(j.Lines)
		other.Lines[0].Debits++
		other.Lines[1].Credits++
		if _, err := gl.PostJournal(ctx, other); !errors.Is(err, ports.ErrGatewayFailed) {
			t.Fatalf("PostJournal of other lines under key %s: %v, want ErrGatewayFailed", j.IdempotencyKey, err)
		}
		if again, err := gl.PostJournal(ctx, j); err != nil || again != ack {
			t.Fatalf("the first journal again after the refusal: %+v, %v; want %+v", again, err, ack)
		}
	})
	faults(t, newAdapter, func(ctx context.Context, gl ports.GeneralLedger) error {
		_, err := gl.PostJournal(ctx, fresh())
		return err
	})
}
