package application

import (
	"context"
	"errors"
	"fmt"

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
	Clock        ports.Clock
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Processing   ports.Processing
	Cards        ports.CardRepository
	Settlement   TransferSettlement
	Requests     Requests
}

// Handle answers with the new transfer's id.
//
// Steps: a stored answer is replayed without asking the network again; the network prepares
// the credit outside any transaction, under a key of the new transfer's id; one transaction
// stores the transfer, its hold and the request's claim and answer. A crash before that
// transaction leaves a prepared credit that nothing refers to: a retry prepares another.
func (h *CreateTransferHandler) Handle(ctx context.Context, call Call, cmd CreateTransfer) (Reply[uuid.UUID], error) {
	if prior, err := lookup[uuid.UUID](ctx, h.Requests, call); err != nil || prior.ended {
		return prior.reply, err
	}
	t, err := h.prepare(ctx, cmd)
	if err != nil {
		return refuse[uuid.UUID](ctx, h.Requests, call, err)
	}
	return finish(ctx, h.Requests, call, func(ctx context.Context) (uuid.UUID, error) {
		now := t.CreatedAt()
		if err := h.Settlement.releaseExpired(ctx, ports.Partners{Only: t.PartnerID()}, t.LoanID(), now); err != nil {
			return uuid.Nil, err
		}
		if err := h.Transfers.Create(ctx, t); err != nil {
			return uuid.Nil, err
		}
		hold, err := domain.Move(NewID(), domain.PostingTransferHold, t.ID(), now, t.Amount().Tiyin(),
			domain.LoanAccount(domain.AccountDemand, t.LoanID()), domain.LoanAccount(domain.AccountHold, t.LoanID()))
		if err != nil {
			return uuid.Nil, err
		}
		return t.ID(), h.Ledger.Post(ctx, hold)
	})
}

// prepare checks the application, its loan and the card, and has the network prepare the
// credit: the transfer to store.
func (h *CreateTransferHandler) prepare(ctx context.Context, cmd CreateTransfer) (*domain.Transfer, error) {
	a, err := getOwned(ctx, h.Applications, cmd.PartnerID, cmd.ApplicationID)
	if err != nil {
		return nil, err
	}
	if a.Status() != domain.StatusCompleted {
		return nil, fmt.Errorf("%w: application status is %s", domain.ErrLoanNotIssued, a.Status())
	}
	loan, err := h.Loans.GetByApplication(ctx, a.ID())
	if err != nil {
		return nil, err
	}
	id := NewID()
	req := ports.CreditRequest{IdempotencyKey: id.String() + ":PREPARE", PAN: cmd.PAN, Network: cmd.Network,
		Amount: cmd.Amount.Tiyin(), CardHolder: cmd.CardHolder}
	masked := cmd.PAN.Masked()
	if cmd.CardID != uuid.Nil {
		card, err := getCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID)
		if err != nil {
			return nil, err
		}
		if card.Status() != domain.CardActive || card.Network() != cmd.Network {
			return nil, fmt.Errorf("%w: card %s is a %s card, %s", domain.ErrCardRejected, card.MaskedPAN(), card.Network(), card.Status())
		}
		req.CardToken, masked = card.Token(), card.MaskedPAN()
	}
	token, err := h.Processing.PrepareCredit(ctx, req)
	if err != nil {
		if errors.Is(err, domain.ErrCardRejected) {
			return nil, err
		}
		return nil, gatewayError(err)
	}
	return domain.NewTransfer(domain.NewTransferParams{ID: id, PartnerID: cmd.PartnerID, ApplicationID: a.ID(),
		LoanID: loan.ID(), ExternalID: cmd.ExternalID, MaskedPAN: masked, AccountNumber: loan.AccountNumber(), Network: cmd.Network, CardHolder: cmd.CardHolder,
		Amount: cmd.Amount, CreditToken: token, Now: h.Clock.Now(cmd.PartnerID)}), nil
}
