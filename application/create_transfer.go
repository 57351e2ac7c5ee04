package application

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CreateTransfer registers a transfer from the client's demand account to a card (endpoint 6).
type CreateTransfer struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
	ExternalID    uuid.UUID
	// PAN or CardID (an ACTIVE card of the partner) names the receiving card.
	PAN        domain.PAN
	CardID     uuid.UUID
	Network    domain.Network
	CardHolder string
	Amount     domain.Amount
}

// CreateTransferHandler checks the card with the network, then, in one transaction, releases
// the loan's expired holds, stores the transfer and holds its amount.
type CreateTransferHandler struct{ d Deps }

// Handle returns the new transfer's id.
func (h *CreateTransferHandler) Handle(ctx context.Context, cmd CreateTransfer) (uuid.UUID, error) {
	a, err := getOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID)
	if err != nil {
		return uuid.Nil, err
	}
	if a.Status() != domain.StatusCompleted {
		return uuid.Nil, fmt.Errorf("%w: application status is %s", domain.ErrLoanNotIssued, a.Status())
	}
	loan, err := h.d.Loans.GetByApplication(ctx, a.ID())
	if err != nil {
		return uuid.Nil, err
	}
	id := newID()
	req := ports.CreditRequest{IdempotencyKey: id.String() + ":PREPARE", PAN: cmd.PAN, Network: cmd.Network,
		Amount: cmd.Amount.Tiyin(), CardHolder: cmd.CardHolder}
	masked := cmd.PAN.Masked()
	if cmd.CardID != uuid.Nil {
		card, err := getCard(ctx, h.d, cmd.PartnerID, cmd.CardID)
		if err != nil {
			return uuid.Nil, err
		}
		if card.Status() != domain.CardActive || card.Network() != cmd.Network {
			return uuid.Nil, fmt.Errorf("%w: card %s is a %s card, %s", domain.ErrCardRejected, card.MaskedPAN(), card.Network(), card.Status())
		}
		req.CardToken, masked = card.Token(), card.MaskedPAN()
	}
	token, err := h.d.Processing.PrepareCredit(ctx, req)
	if err != nil {
		if errors.Is(err, domain.ErrCardRejected) {
			return uuid.Nil, err
		}
		return uuid.Nil, gatewayError(err)
	}
	now := h.d.Clock.Now()
	t := domain.NewTransfer(domain.NewTransferParams{ID: id, PartnerID: cmd.PartnerID, ApplicationID: a.ID(),
		LoanID: loan.ID(), ExternalID: cmd.ExternalID, MaskedPAN: masked, Network: cmd.Network, CardHolder: cmd.CardHolder,
		Amount: cmd.Amount, CreditToken: token, Now: now})
	err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
		if err := releaseExpired(ctx, h.d, loan.ID(), now); err != nil {
			return err
		}
		if err := h.d.Transfers.Create(ctx, t); err != nil {
			return err
		}
		hold, err := domain.Move(newID(), domain.PostingTransferHold, t.ID(), now, t.Amount().Tiyin(),
			domain.LoanAccount(domain.AccountDemand, loan.ID()), domain.LoanAccount(domain.AccountHold, loan.ID()))
		if err != nil {
			return err
		}
		return h.d.Ledger.Post(ctx, hold)
	})
	if err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// releaseExpired records the expiry of the loan's (or, with uuid.Nil, every) unconfirmed
// transfers older than the TTL and releases their holds, in the caller's transaction.
func releaseExpired(ctx context.Context, d Deps, loanID uuid.UUID, now time.Time) error {
	ids, err := d.Transfers.ListNewBefore(ctx, loanID, now.Add(-domain.TransferTTL), reconcileBatch)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := settleTransfer(ctx, d, id, func(t *domain.Transfer) (bool, error) { return t.Expire(now), nil }); err != nil {
			return err
		}
	}
	return nil
}

// settleTransfer applies fn to the transfer and, when the transfer reached a final status,
// captures (SUCCESS) or releases (FAILED, EXPIRED) its hold in the same transaction.
func settleTransfer(ctx context.Context, d Deps, id uuid.UUID, fn func(t *domain.Transfer) (bool, error)) error {
	return d.UoW.Do(ctx, func(ctx context.Context) error {
		var settled *domain.Transfer
		err := d.Transfers.Update(ctx, id, func(t *domain.Transfer) error {
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
		p, err := domain.Move(newID(), kind, settled.ID(), settled.TransactionDateAt(d.Clock.Now()), settled.Amount().Tiyin(),
			domain.LoanAccount(domain.AccountHold, loan), to)
		if err != nil {
			return err
		}
		return d.Ledger.Post(ctx, p)
	})
}
