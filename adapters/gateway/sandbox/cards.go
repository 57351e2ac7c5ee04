package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Magic card numbers of the sandbox networks for attach.
const (
	// PANSMSFails is a card whose SMS code cannot be sent (1006).
	PANSMSFails = "8600000000000006"
	// PANBlocked is a card the network reports blocked (1023).
	PANBlocked = "9860000000000002"
)

// LookupCard implements ports.Processing: cards starting 8600 are UZCARD and 9860 HUMO; any
// such card with a future expiry is known, registered to the phone given; PANBlocked is blocked.
func (*Processing) LookupCard(_ context.Context, q ports.CardQuery) (string, error) {
	pan := q.PAN.Digits()
	switch {
	case networkOf(pan) != q.Network:
		return "", fmt.Errorf("%w: card %s is not a %s card", domain.ErrCardRejected, q.PAN.Masked(), q.Network)
	case pan == PANBlocked:
		return "", fmt.Errorf("%w: card %s is blocked", domain.ErrCardRejected, q.PAN.Masked())
	}
	sum := sha256.Sum256([]byte("card:" + pan + ":" + q.Expiry.String()))
	return "CARD-" + q.Network.String() + "-" + hex.EncodeToString(sum[:12]), nil
}

// Tokenise implements ports.Processing.
func (*Processing) Tokenise(_ context.Context, ref string) (string, error) {
	if !strings.HasPrefix(ref, "CARD-") {
		return "", fmt.Errorf("%w: unknown card reference", ports.ErrGatewayFailed)
	}
	return "TOK-" + strings.TrimPrefix(ref, "CARD-"), nil
}

// SetCardState implements ports.Processing; the sandbox network accepts every change.
func (*Processing) SetCardState(context.Context, string, domain.CardStatus) error { return nil }

// SMSSender is the sandbox SMS gateway: it keeps every message in the outbox.
type SMSSender struct {
	outbox ports.SMSOutbox
	clock  ports.Clock
}

// NewSMSSender returns the sandbox SMS gateway writing to outbox.
func NewSMSSender(outbox ports.SMSOutbox, clock ports.Clock) *SMSSender {
	return &SMSSender{outbox: outbox, clock: clock}
}

var smsFailsMasked = must(domain.ParsePAN(PANSMSFails)).Masked()

// Send implements ports.SMSSender; the code for PANSMSFails is never delivered.
func (s *SMSSender) Send(ctx context.Context, m ports.SMS) error {
	if m.Card == smsFailsMasked {
		return fmt.Errorf("%w: the SMS gateway refused the message", domain.ErrSMSNotSent)
	}
	return s.outbox.Add(ctx, ports.SentSMS{SMS: m, SentAt: s.clock.Now(m.Partner)})
}

// CardIssuer is the sandbox card issuer: it makes a UZCARD card at once, except for a client
// whose pinfl ends 5555, whom it declines.
type CardIssuer struct{ clock ports.Clock }

// NewCardIssuer returns the sandbox card issuer; its cards expire three years after they are made,
// by the system time (the issuer is the bank's, and knows no partner's sandbox clock).
func NewCardIssuer(clock ports.Clock) *CardIssuer { return &CardIssuer{clock: clock} }

// PINFLCardDeclined ends the pinfl of a client the sandbox card issuer declines.
const PINFLCardDeclined = "5555"

// Order implements ports.CardIssuer.
func (*CardIssuer) Order(_ context.Context, req ports.CardIssueRequest) (string, error) {
	mark := "S"
	if strings.HasSuffix(req.ClientData.PINFL(), PINFLCardDeclined) {
		mark = failMark
	}
	return refOf("CI"+mark, req.IdempotencyKey), nil
}

// Result implements ports.CardIssuer.
func (ci *CardIssuer) Result(_ context.Context, ref string) (ports.CardIssueAnswer, error) {
	if strings.HasPrefix(ref, "CI"+failMark+"-") {
		return ports.CardIssueAnswer{Answer: ports.Answer{Status: ports.AnswerDeclined,
			Reason: "the card issuer declined the client"}}, nil
	}
	sum := sha256.Sum256([]byte(ref))
	digits := make([]byte, 12)
	for i := range digits {
		digits[i] = '0' + sum[i]%10
	}
	pan := must(domain.ParsePAN("8600" + string(digits)))
	return ports.CardIssueAnswer{Answer: ports.Answer{Status: ports.AnswerApproved}, Card: ports.IssuedCard{
		Network: domain.NetworkUzcard, MaskedPAN: pan.Masked(), Expiry: domain.ExpiryOf(ci.clock.Now(uuid.Nil).AddDate(3, 0, 0)), Token: "TOK-ISSUED-" + hex.EncodeToString(sum[:12])}}, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
