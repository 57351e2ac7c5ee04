package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TransferSettlement settles transfers: it records a final status and moves the hold's money
// in the same transaction.
type TransferSettlement struct {
	UoW       ports.UnitOfWork
	Transfers ports.TransferRepository
	Ledger    ports.LedgerRepository
	Clock     ports.Clock
}

// expiredBatch bounds the transfers one release expires; the reconciler's next pass takes the
// rest.
const expiredBatch = 500

// releaseExpired records the expiry of the loan's (or, with uuid.Nil, all the partners')
// unconfirmed transfers older than the TTL at now and releases their holds, in the caller's
// transaction.
func (s TransferSettlement) releaseExpired(ctx context.Context, partners ports.Partners, loanID uuid.UUID, now time.Time) error {
	ids, err := s.Transfers.ListNewBefore(ctx, partners, loanID, now.Add(-domain.TransferTTL), expiredBatch)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.settle(ctx, id, func(t *domain.Transfer) (bool, error) { return t.Expire(now), nil }); err != nil {
			return err
		}
	}
	return nil
}

// settle applies fn to the transfer and, when the transfer reached a final status,
// captures (SUCCESS) or releases (FAILED, EXPIRED) its hold in the same transaction.
func (s TransferSettlement) settle(ctx context.Context, id uuid.UUID, fn func(t *domain.Transfer) (bool, error)) error {
	return s.UoW.Do(ctx, func(ctx context.Context) error { return s.SettleIn(ctx, id, fn) })
}

// SettleIn is settle in the caller's transaction, for a use case that owns one (an approved
// resolution commits with its proposal and audit line).
func (s TransferSettlement) SettleIn(ctx context.Context, id uuid.UUID, fn func(t *domain.Transfer) (bool, error)) error {
	var settled *domain.Transfer
	err := s.Transfers.Update(ctx, id, func(t *domain.Transfer) error {
		changed, err := fn(t)
		if err != nil {
			return err
		}
		if changed {
			settled = t
		}
		return nil
	})
	if err != nil || settled == nil || !settled.Status().Final() {
		return err
	}
	loan := settled.LoanID()
	to := domain.LoanAccount(domain.AccountDemand, loan)
	kind := domain.PostingTransferRelease
	if settled.Status() == domain.TransferSuccess {
		to, kind = domain.BankAccount(domain.AccountCardSettlement), domain.PostingTransferCapture
	}
	p, err := domain.Move(NewID(), kind, settled.ID(), settled.TransactionDateAt(s.Clock.Now(settled.PartnerID())), settled.Amount().Tiyin(),
		domain.LoanAccount(domain.AccountHold, loan), to)
	if err != nil {
		return err
	}
	return s.Ledger.Post(ctx, p)
}
