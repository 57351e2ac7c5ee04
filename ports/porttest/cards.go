package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SMSCases are a message the SMS gateway delivers and one it refuses.
type SMSCases struct {
	Delivered ports.SMS
	Refused   ports.SMS // domain.ErrSMSNotSent
}

// RunSMSSender checks an SMSSender adapter against the port's contract.
func RunSMSSender(t *testing.T, newAdapter Constructor[ports.SMSSender], c SMSCases) {
	t.Run("a message is sent", func(t *testing.T) {
		if err := healthy(t, newAdapter).Send(context.Background(), c.Delivered); err != nil {
			t.Fatalf("Send: %v", err)
		}
	})
	t.Run("a refused message is domain.ErrSMSNotSent", func(t *testing.T) {
		if err := healthy(t, newAdapter).Send(context.Background(), c.Refused); !errors.Is(err, domain.ErrSMSNotSent) {
			t.Fatalf("Send: %v, want domain.ErrSMSNotSent", err)
		}
	})
	faults(t, newAdapter, func(ctx context.Context, s ports.SMSSender) error { return s.Send(ctx, c.Delivered) })
}

// CardIssuerCases are card orders the issuer makes a card for, or declines. The suite sets the
// idempotency keys.
type CardIssuerCases struct {
	Issued   ports.CardIssueRequest
	Declined ports.CardIssueRequest
}

// RunCardIssuer checks a CardIssuer adapter against the port's contract.
func RunCardIssuer(t *testing.T, newAdapter Constructor[ports.CardIssuer], c CardIssuerCases) {
	t.Run("an order gives a card, the same for a repeated order", func(t *testing.T) {
		ci, ctx := healthy(t, newAdapter), context.Background()
		req := c.Issued
		req.IdempotencyKey = key(t, "ORDER")
		ref, err := ci.Order(ctx, req)
		if err != nil || ref == "" {
			t.Fatalf("Order: %q, %v", ref, err)
		}
		if again, err := ci.Order(ctx, req); err != nil || again != ref {
			t.Fatalf("Order with the same key: %q, %v; want %q", again, err, ref)
		}
		var a ports.CardIssueAnswer
		eventually(t, "Result", func() (bool, error) {
			a, err = ci.Result(ctx, ref)
			return err == nil && a.Status != ports.AnswerPending, err
		})
		card := a.Card
		if a.Status != ports.AnswerApproved || card.Token == "" || card.MaskedPAN == "" || card.Expiry == (domain.Expiry{}) {
			t.Fatalf("Result: %+v, want approved with a token, a masked number and an expiry", a)
		}
		if again, err := ci.Result(ctx, ref); err != nil || again != a {
			t.Fatalf("Result asked again: %+v, %v; want %+v", again, err, a)
		}
	})
	t.Run("a declined order says why", func(t *testing.T) {
		ci, ctx := healthy(t, newAdapter), context.Background()
		req := c.Declined
		req.IdempotencyKey = key(t, "ORDER")
		ref, err := ci.Order(ctx, req)
		if err != nil {
			t.Fatalf("Order: %v", err)
		}
		var a ports.CardIssueAnswer
		eventually(t, "Result", func() (bool, error) {
			a, err = ci.Result(ctx, ref)
			return err == nil && a.Status != ports.AnswerPending, err
		})
		if a.Status != ports.AnswerDeclined || a.Reason == "" {
			t.Fatalf("Result: %+v, want declined with a reason", a)
		}
	})
	faults(t, newAdapter, func(ctx context.Context, ci ports.CardIssuer) error {
		req := c.Issued
		req.IdempotencyKey = key(t, "ORDER")
		_, err := ci.Order(ctx, req)
		return err
	})
}
