package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Magic card numbers of the sandbox networks.
const (
	// PANCreditFails is a receiver card whose account-to-card credit the network refuses.
	PANCreditFails = "8600000000000014"
)

// networkOf is the sandbox's rule: cards starting 8600 are UZCARD, 9860 HUMO.
func networkOf(pan string) domain.Network {
	switch {
	case strings.HasPrefix(pan, "8600"):
		return domain.NetworkUzcard
	case strings.HasPrefix(pan, "9860"):
		return domain.NetworkHumo
	}
	return domain.Network{}
}

// Processing is the sandbox UZCARD/HUMO processing. Credit tokens carry the outcome the card
// will get, so credits and their status stay deterministic across restarts and nodes. Its
// journal of credits and debits, the source of its statements, is its own and not tiyin's
// database, so the two can disagree: it lives in this process's memory, so a restart, or
// another node, starts an empty one (docs/reconciliation.md).
type Processing struct{ journal *journal }

// NewProcessing returns the sandbox processing.
func NewProcessing() *Processing { return &Processing{journal: &journal{seen: map[string]bool{}}} }

const failMark = "F"

// PrepareCredit implements ports.Processing.
func (*Processing) PrepareCredit(_ context.Context, req ports.CreditRequest) (string, error) {
	if req.CardToken != "" {
		return refOf("CTS", req.IdempotencyKey), nil
	}
	if networkOf(req.PAN.Digits()) != req.Network {
		return "", fmt.Errorf("%w: card %s is not a %s card", domain.ErrCardRejected, req.PAN.Masked(), req.Network)
	}
	mark := "S"
	if req.PAN.Digits() == PANCreditFails {
		mark = failMark
	}
	return refOf("CT"+mark, req.IdempotencyKey), nil
}

// Credit implements ports.Processing.
func (p *Processing) Credit(ctx context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	res, err := p.CreditStatus(ctx, order)
	if err == nil {
		status := domain.LineDone
		if !res.Credited {
			status = domain.LineFailed
		}
		p.journal.record(order.Network, domain.StatementLine{ID: order.IdempotencyKey, Kind: domain.LineCredit,
			Amount: order.Amount, At: order.At, Status: status})
	}
	return res, err
}

// Statement implements ports.Processing: the journal's lines of the day and network, in the
// order they were recorded.
func (p *Processing) Statement(_ context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	return p.journal.statement(q), nil
}

// journal is the sandbox network's own record of what it moved.
type journal struct {
	mu    sync.Mutex
	lines []journalLine
	seen  map[string]bool // kind and id of each line: the same order recorded once
}

type journalLine struct {
	network domain.Network
	line    domain.StatementLine
}

func (j *journal) record(network domain.Network, l domain.StatementLine) {
	if l.At.IsZero() {
		l.At = time.Now()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if key := string(l.Kind) + " " + l.ID; !j.seen[key] {
		j.seen[key] = true
		j.lines = append(j.lines, journalLine{network: network, line: l})
	}
}

func (j *journal) statement(q ports.StatementQuery) []domain.StatementLine {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []domain.StatementLine{}
	for _, l := range j.lines {
		if l.network == q.Network && domain.BusinessDate(l.line.At).Equal(domain.BusinessDate(q.Day)) {
			out = append(out, l.line)
		}
	}
	return out
}

// CreditStatus implements ports.Processing.
func (*Processing) CreditStatus(_ context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	if strings.HasPrefix(order.Token, "CT"+failMark+"-") {
		return ports.CreditResult{Credited: false, Reason: "CARD_ACCOUNT_CLOSED: the receiving card cannot accept credits"}, nil
	}
	return ports.CreditResult{Credited: true}, nil
}
