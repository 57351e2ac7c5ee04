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
type CreateTransferHandler struct {
	d  Deps
	rq requests
}

// Handle answers with the new transfer's id.
//
// Steps: a stored answer is replayed without asking the network again; the network prepares
// the credit outside any transaction, under a key of the new transfer's id; one transaction
// stores the transfer, its hold and the request's claim and answer. A crash before that
// transaction leaves a prepared credit that nothing refers to: a retry prepares another.
func (h *CreateTransferHandler) Handle(ctx context.Context, req Request[uuid.UUID], cmd CreateTransfer) Answer {
	if ans, done, _ := prior(ctx, h.rq, req); done {
		return ans
	}
	t, err := h.prepare(ctx, cmd)
	if err != nil {
		return refuse(ctx, h.rq, req, err)
	}
	return once(ctx, h.rq, req, func(ctx context.Context) (uuid.UUID, error) {
		now := t.CreatedAt()
		if err := releaseExpired(ctx, h.d, t.LoanID(), now); err != nil {
			return uuid.Nil, err
		}
		if err := h.d.Transfers.Create(ctx, t); err != nil {
			return uuid.Nil, err
		}
		hold, err := domain.Move(newID(), domain.PostingTransferHold, t.ID(), now, t.Amount().Tiyin(),
			domain.LoanAccount(domain.AccountDemand, t.LoanID()), domain.LoanAccount(domain.AccountHold, t.LoanID()))
		if err != nil {
			return uuid.Nil, err
		}
		return t.ID(), h.d.Ledger.Post(ctx, hold)
	})
}

// prepare checks the application, its loan and the card, and has the network prepare the
// credit: the transfer to store.
func (h *CreateTransferHandler) prepare(ctx context.Context, cmd CreateTransfer) (*domain.Transfer, error) {
	a, err := getOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID)
	if err != nil {
		return nil, err
	}
	if a.Status() != domain.StatusCompleted {
		return nil, fmt.Errorf("%w: application status is %s", domain.ErrLoanNotIssued, a.Status())
	}
	loan, err := h.d.Loans.GetByApplication(ctx, a.ID())
	if err != nil {
		return nil, err
	}
	id := newID()
	req := ports.CreditRequest{IdempotencyKey: id.String() + ":PREPARE", PAN: cmd.PAN, Network: cmd.Network,
		Amount: cmd.Amount.Tiyin(), CardHolder: cmd.CardHolder}
	masked := cmd.PAN.Masked()
	if cmd.CardID != uuid.Nil {
		card, err := getCard(ctx, h.d, cmd.PartnerID, cmd.CardID)
		if err != nil {
			return nil, err
		}
		if card.Status() != domain.CardActive || card.Network() != cmd.Network {
			return nil, fmt.Errorf("%w: card %s is a %s card, %s", domain.ErrCardRejected, card.MaskedPAN(), card.Network(), card.Status())
		}
		req.CardToken, masked = card.Token(), card.MaskedPAN()
	}
	token, err := h.d.Processing.PrepareCredit(ctx, req)
	if err != nil {
		if errors.Is(err, domain.ErrCardRejected) {
			return nil, err
		}
		return nil, gatewayError(err)
	}
	return domain.NewTransfer(domain.NewTransferParams{ID: id, PartnerID: cmd.PartnerID, ApplicationID: a.ID(),
		LoanID: loan.ID(), ExternalID: cmd.ExternalID, MaskedPAN: masked, Network: cmd.Network, CardHolder: cmd.CardHolder,
		Amount: cmd.Amount, CreditToken: token, Now: h.d.Clock.Now()}), nil
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
