package sandbox

import (
	"context"
	"fmt"
	"strings"

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
// will get, so credits and their status stay deterministic across restarts and nodes.
type Processing struct{}

// NewProcessing returns the sandbox processing.
func NewProcessing() *Processing { return &Processing{} }

const failMark = "F"

// PrepareCredit implements ports.Processing.
func (Processing) PrepareCredit(_ context.Context, req ports.CreditRequest) (string, error) {
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
func (p Processing) Credit(ctx context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	return p.CreditStatus(ctx, order)
}

// CreditStatus implements ports.Processing.
func (Processing) CreditStatus(_ context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	if strings.HasPrefix(order.Token, "CT"+failMark+"-") {
		return ports.CreditResult{Credited: false, Reason: "CARD_ACCOUNT_CLOSED: the receiving card cannot accept credits"}, nil
	}
	return ports.CreditResult{Credited: true}, nil
}
