package porttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProcessingCases are cards and debits the network behind the adapter knows, or not. The
// suite sets the idempotency keys.
type ProcessingCases struct {
	Credit        ports.CreditRequest // a card the network credits
	RefusedCredit ports.CreditRequest // a card it knows but whose credit it refuses
	UnknownCard   ports.CreditRequest // a card it does not know: domain.ErrCardRejected
	Attach        ports.CardQuery     // a card it knows, registered to that phone
	RejectedCard  ports.CardQuery     // a card it refuses to attach: domain.ErrCardRejected
	Debit         ports.DebitQuery    // a debit it knows
	UnknownDebit  ports.DebitQuery    // a debit it does not know: domain.ErrDebitRejected
}

// RunProcessing checks a Processing adapter against the port's contract.
func RunProcessing(t *testing.T, newAdapter Constructor[ports.Processing], c ProcessingCases) {
	t.Run("a credit is prepared, sent and its status read, each repeatable", func(t *testing.T) {
		p, ctx := healthy(t, newAdapter), context.Background()
		req := c.Credit
		req.IdempotencyKey = key(t, "PREPARE")
		token, err := p.PrepareCredit(ctx, req)
		if err != nil || token == "" {
			t.Fatalf("PrepareCredit: %q, %v", token, err)
		}
		if again, err := p.PrepareCredit(ctx, req); err != nil || again != token {
			t.Fatalf("PrepareCredit with the same key: %q, %v; want %q", again, err, token)
		}
		order := ports.CreditOrder{IdempotencyKey: key(t, "CREDIT"), Token: token, Amount: req.Amount}
		res, err := p.Credit(ctx, order)
		if err != nil || !res.Credited {
			t.Fatalf("Credit: %+v, %v", res, err)
		}
		if again, err := p.Credit(ctx, order); err != nil || again != res {
			t.Fatalf("Credit with the same key: %+v, %v; want the first outcome %+v", again, err, res)
		}
		if st, err := p.CreditStatus(ctx, order); err != nil || st != res {
			t.Fatalf("CreditStatus: %+v, %v; want %+v", st, err, res)
		}
	})
	t.Run("a refused credit says why, and its status agrees", func(t *testing.T) {
		p, ctx := healthy(t, newAdapter), context.Background()
		req := c.RefusedCredit
		req.IdempotencyKey = key(t, "PREPARE")
		token, err := p.PrepareCredit(ctx, req)
		if err != nil {
			t.Fatalf("PrepareCredit: %v", err)
		}
		order := ports.CreditOrder{IdempotencyKey: key(t, "CREDIT"), Token: token, Amount: req.Amount}
		res, err := p.Credit(ctx, order)
		if err != nil || res.Credited || res.Reason == "" {
			t.Fatalf("Credit: %+v, %v; want not credited, with a reason", res, err)
		}
		if st, err := p.CreditStatus(ctx, order); err != nil || st != res {
			t.Fatalf("CreditStatus: %+v, %v; want %+v", st, err, res)
		}
	})
	t.Run("an unknown card is domain.ErrCardRejected", func(t *testing.T) {
		req := c.UnknownCard
		req.IdempotencyKey = key(t, "PREPARE")
		if _, err := healthy(t, newAdapter).PrepareCredit(context.Background(), req); !errors.Is(err, domain.ErrCardRejected) {
			t.Fatalf("PrepareCredit: %v, want domain.ErrCardRejected", err)
		}
	})
	t.Run("a card is looked up, tokenised the same way twice, and its state set twice", func(t *testing.T) {
		p, ctx := healthy(t, newAdapter), context.Background()
		ref, err := p.LookupCard(ctx, c.Attach)
		if err != nil || ref == "" {
			t.Fatalf("LookupCard: %q, %v", ref, err)
		}
		token, err := p.Tokenise(ctx, ref)
		if err != nil || token == "" {
			t.Fatalf("Tokenise: %q, %v", token, err)
		}
		if again, err := p.Tokenise(ctx, ref); err != nil || again != token {
			t.Fatalf("Tokenise again: %q, %v; want %q", again, err, token)
		}
		for range 2 {
			if err := p.SetCardState(ctx, token, domain.CardBlocked); err != nil {
				t.Fatalf("SetCardState BLOCKED: %v", err)
			}
		}
	})
	t.Run("a refused card is domain.ErrCardRejected", func(t *testing.T) {
		if _, err := healthy(t, newAdapter).LookupCard(context.Background(), c.RejectedCard); !errors.Is(err, domain.ErrCardRejected) {
			t.Fatalf("LookupCard: %v, want domain.ErrCardRejected", err)
		}
	})
	t.Run("a debit is read as the network knows it", func(t *testing.T) {
		d, err := healthy(t, newAdapter).LookupDebit(context.Background(), c.Debit)
		if err != nil || d.ID != c.Debit.DebitID || d.Network != c.Debit.Network || d.Amount <= 0 {
			t.Fatalf("LookupDebit: %+v, %v", d, err)
		}
	})
	t.Run("an unknown debit is domain.ErrDebitRejected", func(t *testing.T) {
		if _, err := healthy(t, newAdapter).LookupDebit(context.Background(), c.UnknownDebit); !errors.Is(err, domain.ErrDebitRejected) {
			t.Fatalf("LookupDebit: %v, want domain.ErrDebitRejected", err)
		}
	})
	t.Run("the statement of a day lists its credits and debits, once each, and another day's does not", func(t *testing.T) {
		p, ctx := healthy(t, newAdapter), context.Background()
		now := time.Now()
		req := c.Credit
		req.IdempotencyKey = key(t, "PREPARE")
		token, err := p.PrepareCredit(ctx, req)
		if err != nil {
			t.Fatalf("PrepareCredit: %v", err)
		}
		order := ports.CreditOrder{IdempotencyKey: key(t, "CREDIT"), Token: token, Amount: req.Amount, Network: req.Network, At: now}
		for range 2 { // a retried order is one line
			if _, err := p.Credit(ctx, order); err != nil {
				t.Fatalf("Credit: %v", err)
			}
		}
		debit := c.Debit
		debit.DebitID, debit.At = debit.DebitID+"-"+key(t, "STATEMENT"), now
		if _, err := p.LookupDebit(ctx, debit); err != nil {
			t.Fatalf("LookupDebit: %v", err)
		}
		day := domain.BusinessDate(now)
		found, count := map[string]domain.StatementLine{}, map[string]int{}
		networks := []domain.Network{req.Network}
		if debit.Network != req.Network {
			networks = append(networks, debit.Network)
		}
		for _, n := range networks {
			lines, err := p.Statement(ctx, ports.StatementQuery{Network: n, Day: day})
			if err != nil {
				t.Fatalf("Statement: %v", err)
			}
			for _, l := range lines {
				found[l.ID] = l
				count[l.ID]++
			}
		}
		if count[order.IdempotencyKey] != 1 || count[debit.DebitID] != 1 {
			t.Fatalf("the statement lists the credit %d times and the debit %d times, want once each", count[order.IdempotencyKey], count[debit.DebitID])
		}
		if l, ok := found[order.IdempotencyKey]; !ok || l.Kind != domain.LineCredit || l.Amount != req.Amount || l.Status != domain.LineDone {
			t.Fatalf("the credit in the statement: %+v (found %t)", l, ok)
		}
		if l, ok := found[debit.DebitID]; !ok || l.Kind != domain.LineDebit || l.Status != domain.LineDone {
			t.Fatalf("the debit in the statement: %+v (found %t)", l, ok)
		}
		other, err := p.Statement(ctx, ports.StatementQuery{Network: req.Network, Day: day.AddDate(0, 0, -3)})
		if err != nil {
			t.Fatalf("Statement of another day: %v", err)
		}
		for _, l := range other {
			if l.ID == order.IdempotencyKey || l.ID == debit.DebitID {
				t.Fatalf("another day's statement lists %s", l.ID)
			}
		}
	})
	faults(t, newAdapter, func(ctx context.Context, p ports.Processing) error {
		req := c.Credit
		req.IdempotencyKey = key(t, "PREPARE")
		_, err := p.PrepareCredit(ctx, req)
		return err
	})
}
