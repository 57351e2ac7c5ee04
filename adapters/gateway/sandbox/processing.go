package sandbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
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
// journal of what it credited and debited, the source of its statements, is its own: not
// tiyin's transfers and repayments, so the two can disagree (docs/reconciliation.md).
type Processing struct {
	journal ports.NetworkJournal
	faults  Faults // the journal's (Faults.JournalFault)
}

// NewProcessing returns the sandbox processing with a journal in this process's memory (for
// tests; a server keeps it in the database: NewProcessingWith).
func NewProcessing() *Processing {
	return &Processing{journal: NewMemoryJournal()}
}

// NewProcessingWith returns the sandbox processing keeping its journal in journal, which
// takes faults' journal faults.
func NewProcessingWith(journal ports.NetworkJournal, faults Faults) *Processing {
	return &Processing{journal: journal, faults: faults}
}

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
		err = p.record(ctx, order.Network, domain.StatementLine{ID: order.IdempotencyKey, Kind: domain.LineCredit,
			Amount: order.Amount, At: order.At, Status: status}, order.AccountNumber)
	}
	return res, err
}

// Statement implements ports.Processing: the journal's lines of the day and network.
func (p *Processing) Statement(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	return p.journal.Lines(ctx, q)
}

// record keeps a line in the journal as its fault says (none, lost, twice, one tiyin less,
// reversed); a line whose time is unset gets now. account is the demand account a credit
// draws on.
func (p *Processing) record(ctx context.Context, network domain.Network, l domain.StatementLine, account string) error {
	if l.At.IsZero() {
		l.At = time.Now()
	}
	switch p.faults.JournalFault(l.Kind, l.ID) {
	case FaultLostCredit:
		return nil
	case FaultDoubleCredit:
		if err := p.journal.Record(ctx, network, l, account, 1); err != nil {
			return err
		}
	case FaultAmountDrift:
		l.Amount-- // the card got one tiyin less than ordered
	case FaultReversedDebit:
		l.Status = domain.LineReversed
	}
	return p.journal.Record(ctx, network, l, account, 0)
}

// MemoryJournal is the sandbox bank's journal in this process's memory: for tests, where no
// database is. A core banking and a network sharing one agree on the demand accounts.
type MemoryJournal struct {
	mu        sync.Mutex
	lines     []journalLine
	seen      map[string]bool // kind and id of each line: the same order recorded once
	disbursed map[string]bool
	disburses []journalLine
}

// NewMemoryJournal returns an empty journal.
func NewMemoryJournal() *MemoryJournal {
	return &MemoryJournal{seen: map[string]bool{}, disbursed: map[string]bool{}}
}

type journalLine struct {
	network domain.Network
	line    domain.StatementLine
	account string
	copy    int
}

// Record implements ports.NetworkJournal.
func (j *MemoryJournal) Record(_ context.Context, network domain.Network, l domain.StatementLine, account string, copy int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if key := fmt.Sprint(l.Kind, " ", l.ID, " ", copy); !j.seen[key] {
		j.seen[key] = true
		j.lines = append(j.lines, journalLine{network: network, line: l, account: account, copy: copy})
	}
	return nil
}

// Lines implements ports.NetworkJournal.
func (j *MemoryJournal) Lines(_ context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []domain.StatementLine{}
	for _, l := range j.lines {
		if l.network == q.Network && domain.BusinessDate(l.line.At).Equal(domain.BusinessDate(q.Day)) {
			out = append(out, l.line)
		}
	}
	return out, nil
}

// Disburse implements ports.NetworkJournal.
func (j *MemoryJournal) Disburse(_ context.Context, ref, account string, amount int64, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.disbursed[ref] {
		j.disbursed[ref] = true
		j.disburses = append(j.disburses, journalLine{line: domain.StatementLine{ID: ref, Amount: amount, At: at}, account: account})
	}
	return nil
}

// Balances implements ports.NetworkJournal.
func (j *MemoryJournal) Balances(_ context.Context, day time.Time) ([]domain.AccountBalance, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	by := map[string]int64{}
	onOrBefore := func(at time.Time) bool { return !domain.BusinessDate(at).After(domain.BusinessDate(day)) }
	for _, d := range j.disburses {
		if onOrBefore(d.line.At) {
			by[d.account] += d.line.Amount
		}
	}
	for _, l := range j.lines {
		if l.line.Kind == domain.LineCredit && l.line.Status == domain.LineDone && l.copy == 0 && l.account != "" && onOrBefore(l.line.At) {
			by[l.account] -= l.line.Amount
		}
	}
	out := make([]domain.AccountBalance, 0, len(by))
	for _, a := range slices.Sorted(maps.Keys(by)) {
		out = append(out, domain.AccountBalance{Account: a, Kind: domain.LineDemand, Balance: by[a]})
	}
	return out, nil
}

// CreditStatus implements ports.Processing.
func (*Processing) CreditStatus(_ context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	if strings.HasPrefix(order.Token, "CT"+failMark+"-") {
		return ports.CreditResult{Credited: false, Reason: "CARD_ACCOUNT_CLOSED: the receiving card cannot accept credits"}, nil
	}
	return ports.CreditResult{Credited: true}, nil
}
