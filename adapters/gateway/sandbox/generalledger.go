package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/tiyin/tiyin/ports"
)

// GeneralLedger is the sandbox bank's general ledger: it keeps every journal posted to it, by
// day and sequence, and acknowledges each with a reference derived from the key and the
// journal's lines, so that the same journal gets the same reference on any node and after a
// restart, and with the debits and credits it posted (the journal's). Its journal is kept in this process's memory (Posted reads it): a different journal
// under a key already posted is refused (ErrGatewayFailed) by the process that holds the
// first; tiyin itself keeps what it posted and never sends a key twice with other lines.
type GeneralLedger struct {
	mu     sync.Mutex
	posted map[string]ports.GLJournal
	order  []string
}

// NewGeneralLedger returns the sandbox general ledger with an empty journal.
func NewGeneralLedger() *GeneralLedger { return &GeneralLedger{posted: map[string]ports.GLJournal{}} }

// PostJournal implements ports.GeneralLedger.
func (g *GeneralLedger) PostJournal(ctx context.Context, j ports.GLJournal) (ports.GLAck, error) {
	if err := ctx.Err(); err != nil {
		return ports.GLAck{}, fmt.Errorf("%w: the general ledger was not called: %w", ports.ErrGatewayTransient, err)
	}
	key := ports.GLKey(j.Day, j.Sequence)
	if j.IdempotencyKey != key || j.Sequence < 1 {
		return ports.GLAck{}, fmt.Errorf("%w: journal key %q, want %q with a sequence from 1", ports.ErrGatewayFailed, j.IdempotencyKey, key)
	}
	totals := j.Totals()
	if totals.Debits != totals.Credits {
		return ports.GLAck{}, fmt.Errorf("%w: journal %s does not balance: debits %d, credits %d", ports.ErrGatewayFailed, key,
			totals.Debits, totals.Credits)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if first, ok := g.posted[key]; ok && !slices.Equal(first.Lines, j.Lines) {
		return ports.GLAck{}, fmt.Errorf("%w: journal %s was posted already with other lines", ports.ErrGatewayFailed, key)
	} else if !ok {
		g.posted[key] = ports.GLJournal{IdempotencyKey: key, Day: j.Day, Sequence: j.Sequence, Lines: slices.Clone(j.Lines)}
		g.order = append(g.order, key)
	}
	return ports.GLAck{Ref: glRef(j), Debits: totals.Debits, Credits: totals.Credits}, nil
}

// glRef is the acknowledgement of a journal: its key and a digest of its lines.
func glRef(j ports.GLJournal) string {
	h := sha256.New()
	for _, l := range j.Lines {
		_, _ = fmt.Fprintf(h, "%s:%d:%d;", l.GL, l.Debits, l.Credits)
	}
	return "GL-" + j.Day.Format("20060102") + "-" + strconv.Itoa(j.Sequence) + "-" + hex.EncodeToString(h.Sum(nil)[:6])
}

// Posted is the sandbox general ledger's journal: what was posted, in the order it first was.
func (g *GeneralLedger) Posted() []ports.GLJournal {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]ports.GLJournal, 0, len(g.order))
	for _, k := range g.order {
		out = append(out, g.posted[k])
	}
	return out
}
