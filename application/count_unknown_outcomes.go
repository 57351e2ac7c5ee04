package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/ports"
)

// UnknownOutcomeAge is how long a gateway call may stay unanswered before operators are shown
// it: tiyin keeps asking on its own, but past this the bank's system deserves a look.
const UnknownOutcomeAge = 10 * time.Minute

// UnknownOutcomes counts the work whose gateway outcome has been unknown for longer than
// UnknownOutcomeAge, by kind.
type UnknownOutcomes struct {
	Applications, Transfers, CardOrders int
}

// CountUnknownOutcomesHandler counts unknown outcomes for the operators' gauge. It reads the
// system time: a sandbox partner's own clock does not age its work for operators.
type CountUnknownOutcomesHandler struct {
	Clock        ports.Clock
	Applications ports.ApplicationRepository
	Transfers    ports.TransferRepository
	CardOrders   ports.CardOrderRepository
}

// Handle counts.
func (h *CountUnknownOutcomesHandler) Handle(ctx context.Context) (UnknownOutcomes, error) {
	before := h.Clock.Now(uuid.Nil).Add(-UnknownOutcomeAge)
	var (
		n   UnknownOutcomes
		err error
	)
	if n.Applications, err = h.Applications.CountUnknownBefore(ctx, before); err != nil {
		return n, err
	}
	if n.Transfers, err = h.Transfers.CountProcessingBefore(ctx, before); err != nil {
		return n, err
	}
	n.CardOrders, err = h.CardOrders.CountUnknownBefore(ctx, before)
	return n, err
}
