package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TransferRef names a transfer the way the partner does: both ids must match.
type TransferRef struct {
	PartnerID     uuid.UUID
	TransactionID uuid.UUID
	ExternalID    uuid.UUID
}

// getTransfer returns the partner's transfer; a foreign or mismatched one is not found.
func getTransfer(ctx context.Context, d Deps, ref TransferRef) (*domain.Transfer, error) {
	t, err := d.Transfers.Get(ctx, ref.TransactionID)
	if err != nil {
		return nil, err
	}
	if t.PartnerID() != ref.PartnerID || t.ExternalID() != ref.ExternalID {
		return nil, domain.ErrTransferNotFound
	}
	return t, nil
}

// ConfirmTransferHandler confirms a transfer (endpoint 7): it records PROCESSING durably, asks
// the network to credit the card, and records the answer: SUCCESS captures the hold, FAILED
// releases it. An unknown outcome leaves the transfer PROCESSING; the reconciler settles it by
// asking the network with the same key, never by releasing the hold.
type ConfirmTransferHandler struct{ d Deps }

// Handle confirms and returns the transfer as it stands afterwards.
func (h *ConfirmTransferHandler) Handle(ctx context.Context, ref TransferRef) (*domain.Transfer, error) {
	t, err := getTransfer(ctx, h.d, ref)
	if err != nil {
		return nil, err
	}
	now := h.d.Clock.Now()
	if t.StatusAt(now) == domain.TransferExpired {
		// Record the expiry (and release the hold) durably, then refuse.
		if err := settleTransfer(h.d.UoW.Detach(ctx), h.d, t.ID(), func(t *domain.Transfer) (bool, error) { return t.Expire(now), nil }); err != nil {
			return nil, err
		}
		return nil, t.StartProcessing(now)
	}
	err = h.d.UoW.Do(h.d.UoW.Detach(ctx), func(ctx context.Context) error {
		return h.d.Transfers.Update(ctx, t.ID(), func(t *domain.Transfer) error { return t.StartProcessing(h.d.Clock.Now()) })
	})
	if err != nil {
		return nil, err
	}
	order := ports.CreditOrder{IdempotencyKey: t.ID().String() + ":CREDIT", Token: t.CreditToken(), Amount: t.Amount().Tiyin()}
	result, err := h.d.Processing.Credit(ctx, order)
	if err == nil {
		err = settleTransfer(ctx, h.d, t.ID(), func(t *domain.Transfer) (bool, error) {
			return true, t.Settle(result.Credited, result.Reason, h.d.Clock.Now())
		})
		if err != nil && !errors.Is(err, domain.ErrTransferState) {
			return nil, err
		}
	}
	return h.d.Transfers.Get(ctx, t.ID())
}
