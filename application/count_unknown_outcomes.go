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
	clock        ports.Clock
	applications ports.ApplicationRepository
	transfers    ports.TransferRepository
	cardOrders   ports.CardOrderRepository
}

// NewCountUnknownOutcomesHandler returns the handler on the ports it uses.
func NewCountUnknownOutcomesHandler(clock ports.Clock, applications ports.ApplicationRepository,
	transfers ports.TransferRepository, cardOrders ports.CardOrderRepository) *CountUnknownOutcomesHandler {
	return &CountUnknownOutcomesHandler{clock: clock, applications: applications, transfers: transfers, cardOrders: cardOrders}
}

// Handle counts.
func (h *CountUnknownOutcomesHandler) Handle(ctx context.Context) (UnknownOutcomes, error) {
	before := h.clock.Now(uuid.Nil).Add(-UnknownOutcomeAge)
	var (
		n   UnknownOutcomes
		err error
	)
	if n.Applications, err = h.applications.CountUnknownBefore(ctx, before); err != nil {
		return n, err
	}
	if n.Transfers, err = h.transfers.CountProcessingBefore(ctx, before); err != nil {
		return n, err
	}
	n.CardOrders, err = h.cardOrders.CountUnknownBefore(ctx, before)
	return n, err
}
