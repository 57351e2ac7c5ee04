package application

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Helpers every use case shares: new ids, and a partner's own objects, read or changed under
// their row lock, another partner's hidden behind "not found".

// NewID returns a time-ordered UUID (v7), which keeps primary-key indexes compact.
func NewID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New()
	}
	return id
}

// ownedBy hides another partner's application behind "not found": a partner never learns that
// a foreign id exists.
func ownedBy(a *domain.Application, partnerID uuid.UUID) error {
	if a.PartnerID() != partnerID {
		return domain.ErrApplicationNotFound
	}
	return nil
}

// getOwned reads the partner's application.
func getOwned(ctx context.Context, repo ports.ApplicationRepository, partnerID, id uuid.UUID) (*domain.Application, error) {
	a, err := repo.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := ownedBy(a, partnerID); err != nil {
		return nil, err
	}
	return a, nil
}

// updateOwned changes the partner's application under its row lock, at now. An application
// that outlived its ttl (0: none) by now is EXPIRED, a fact of the clock: the expiry is
// recorded first and kept whatever the answer, and fn then refuses as it does for any EXPIRED
// application, so a call after the TTL answers as the reconciler would have left it.
func updateOwned(ctx context.Context, repo ports.ApplicationRepository, partnerID, id uuid.UUID,
	now time.Time, ttl time.Duration, fn func(a *domain.Application) error) error {
	var refusal error
	err := repo.Update(ctx, id, func(a *domain.Application) error {
		if err := ownedBy(a, partnerID); err != nil {
			return err
		}
		if !a.Expire(now, ttl) {
			return fn(a)
		}
		if refusal = fn(a); refusal == nil {
			return errors.New("an EXPIRED application accepted a change") // never: every change refuses EXPIRED
		}
		return nil
	})
	if err == nil && refusal != nil {
		return keep(refusal)
	}
	return err
}

// getTransfer returns the partner's transfer; a foreign or mismatched one is not found.
func getTransfer(ctx context.Context, transfers ports.TransferRepository, ref TransferRef) (*domain.Transfer, error) {
	t, err := transfers.Get(ctx, ref.TransactionID)
	if err != nil {
		return nil, err
	}
	if t.PartnerID() != ref.PartnerID || t.ExternalID() != ref.ExternalID {
		return nil, domain.ErrTransferNotFound
	}
	return t, nil
}

// getCard returns the partner's card; a foreign one is not found.
func getCard(ctx context.Context, cards ports.CardRepository, partnerID, id uuid.UUID) (*domain.Card, error) {
	c, err := cards.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.PartnerID() != partnerID {
		return nil, domain.ErrCardNotFound
	}
	return c, nil
}

// updateCard changes the partner's card under its row lock.
func updateCard(ctx context.Context, cards ports.CardRepository, partnerID, id uuid.UUID, fn func(c *domain.Card) error) error {
	return cards.Update(ctx, id, func(c *domain.Card) error {
		if c.PartnerID() != partnerID {
			return domain.ErrCardNotFound
		}
		return fn(c)
	})
}

// getRepayment returns the partner's repayment request; a foreign one is not found.
func getRepayment(ctx context.Context, repayments ports.RepaymentRepository, partnerID, id uuid.UUID) (*domain.Repayment, error) {
	r, err := repayments.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.PartnerID() != partnerID {
		return nil, domain.ErrRepaymentNotFound
	}
	return r, nil
}

// TransferRef names a transfer the way the partner does: both ids must match.
type TransferRef struct {
	PartnerID     uuid.UUID
	TransactionID uuid.UUID
	ExternalID    uuid.UUID
}
