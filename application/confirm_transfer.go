package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ConfirmTransferHandler confirms a transfer (endpoint 7): SUCCESS captures the hold, FAILED
// releases it. An unknown outcome leaves the transfer PROCESSING; the reconciler settles it by
// asking the network with the same key, never by releasing the hold.
type ConfirmTransferHandler struct {
	Clock      ports.Clock
	Transfers  ports.TransferRepository
	Processing ports.Processing
	Settlement TransferSettlement
	Requests   Requests
}

// Handle confirms and answers with the transfer as it stands afterwards.
//
// Steps, each transaction short and no gateway call inside one:
//  1. one transaction claims the request and moves the transfer to PROCESSING (a refusal,
//     1015 or 1016, is stored as the answer instead);
//  2. the network is asked to credit the card, under the transfer's own key;
//  3. one transaction records the network's answer (SUCCESS or FAILED, with the hold's
//     posting) and stores the request's answer.
//
// A retry with the same id after a stop between 1 and 3 finds the claim unanswered and
// resumes at 2: the network answers the same key the same way, so the answer is the one the
// first run would have given. A concurrent duplicate does the same, and step 3 of whichever
// run comes second finds the answer stored and gives it.
func (h *ConfirmTransferHandler) Handle(ctx context.Context, call Call, ref TransferRef) (Reply[TransferState], error) {
	prior, err := lookup[TransferState](ctx, h.Requests, call)
	if err != nil || prior.ended {
		return prior.reply, err
	}
	t, err := getTransfer(ctx, h.Transfers, ref)
	switch {
	case err != nil && prior.resume:
		return Reply[TransferState]{}, err
	case err != nil:
		return refuse[TransferState](ctx, h.Requests, call, err)
	case !prior.resume:
		if first, err := h.startProcessing(ctx, call, t); err != nil || first.ended {
			return first.reply, err
		}
	}
	result, creditErr := h.Processing.Credit(ctx, creditOrder(t))
	return resume(ctx, h.Requests, call, func(ctx context.Context) (TransferState, error) {
		if creditErr == nil {
			err := h.Settlement.settle(ctx, t.ID(), func(t *domain.Transfer) (bool, error) {
				return true, t.Settle(result.Credited, result.Reason, h.Clock.Now(t.PartnerID()))
			})
			if err != nil && !errors.Is(err, domain.ErrTransferState) {
				return TransferState{}, err
			}
		}
		t, err := h.Transfers.Get(ctx, t.ID())
		if err != nil {
			return TransferState{}, err
		}
		now := h.Clock.Now(t.PartnerID())
		return TransferState{ExternalID: t.ExternalID(), Status: t.StatusAt(now), Message: t.MessageAt(now)}, nil
	})
}

// TransferState is a confirmed transfer as it stands afterwards.
type TransferState struct {
	ExternalID uuid.UUID
	Status     domain.TransferStatus
	Message    string
}

// startProcessing is step 1: the claim and PROCESSING in one transaction. It ends the call
// (ended) when the transfer cannot be confirmed.
func (h *ConfirmTransferHandler) startProcessing(ctx context.Context, call Call, t *domain.Transfer) (standing[TransferState], error) {
	if now := h.Clock.Now(t.PartnerID()); t.StatusAt(now) == domain.TransferExpired {
		// The expiry is a fact of the clock: recorded, and the hold released, whatever the outcome.
		if err := h.Settlement.settle(ctx, t.ID(), func(t *domain.Transfer) (bool, error) { return t.Expire(now), nil }); err != nil {
			return standing[TransferState]{}, err
		}
	}
	return begin[TransferState](ctx, h.Requests, call, func(ctx context.Context) error {
		return h.Transfers.Update(ctx, t.ID(), func(t *domain.Transfer) error { return t.StartProcessing(h.Clock.Now(t.PartnerID())) })
	})
}

// creditOrder is the network's order to credit the transfer's card; its key is the
// transfer's, so every run of a confirm and the reconciler ask the same question. Its time is
// the transfer's creation, which never changes: both sides file the credit under that
// business day (docs/reconciliation.md).
func creditOrder(t *domain.Transfer) ports.CreditOrder {
	s := t.State()
	return ports.CreditOrder{IdempotencyKey: domain.CreditLineID(t.ID()), Token: t.CreditToken(), Amount: t.Amount().Tiyin(),
		Network: s.Network, At: s.CreatedAt, AccountNumber: s.AccountNumber}
}
