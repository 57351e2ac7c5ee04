package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// PayRepayment pays a checked repayment request with a card debit (endpoint 13).
type PayRepayment struct {
	PartnerID uuid.UUID
	// ExternalID is the pay request's envelope id; status quotes it back.
	ExternalID uuid.UUID
	LoanID     string
	RequestID  uuid.UUID
	Type       domain.PaymentType
	DebitID    string
	Amount     int64
	Network    domain.Network
}

// PayRepaymentHandler verifies the debit with the processing network and then, in one
// transaction under the request's and the loan's row locks, applies the payment in the legal
// order, posts it and records it on the request. A refused pay changes nothing: neither the
// request nor the debit is used up.
type PayRepaymentHandler struct{ d Deps }

// Handle returns the paid request with its status.
func (h *PayRepaymentHandler) Handle(ctx context.Context, cmd PayRepayment) (RepaymentView, error) {
	// Refuse what can be refused before asking the network, outside the request's transaction.
	read := h.d.UoW.Detach(ctx)
	r, err := getRepayment(read, h.d, cmd.PartnerID, cmd.RequestID)
	if err != nil {
		return RepaymentView{}, err
	}
	if r.ContractNumber() != cmd.LoanID {
		return RepaymentView{}, domain.ErrRepaymentNotFound
	}
	loan, err := h.d.Loans.Get(read, r.LoanID())
	if err != nil {
		return RepaymentView{}, err
	}
	if err := r.Payable(loan, h.d.Clock.Now(), cmd.Amount); err != nil {
		return RepaymentView{}, err
	}
	debit, err := h.d.Processing.LookupDebit(ctx, ports.DebitQuery{DebitID: cmd.DebitID, Network: cmd.Network, Amount: cmd.Amount})
	if err != nil {
		if errors.Is(err, domain.ErrDebitRejected) {
			return RepaymentView{}, err
		}
		return RepaymentView{}, gatewayError(err)
	}
	if err := domain.VerifyDebit(debit, cmd.Amount, cmd.Network); err != nil {
		return RepaymentView{}, err
	}
	var paid *domain.Repayment
	var version int
	err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
		var posting domain.Posting
		err := h.d.Repayments.Update(ctx, r.ID(), func(r *domain.Repayment) error {
			paid = r
			return h.d.Loans.Update(ctx, r.LoanID(), func(loan *domain.Loan) error {
				var err error
				posting, err = r.Pay(loan, domain.Payment{Type: cmd.Type, Amount: cmd.Amount, DebitID: cmd.DebitID,
					Network: cmd.Network, ExternalID: cmd.ExternalID, TransactionID: newID(), At: h.d.Clock.Now()})
				version = loan.Repayments()
				return err
			})
		})
		if err != nil {
			return err
		}
		return h.d.Ledger.Post(ctx, posting)
	})
	if err != nil {
		return RepaymentView{}, err
	}
	status, msg := paid.StatusAt(h.d.Clock.Now(), version)
	return RepaymentView{Repayment: paid, Status: status, Message: msg}, nil
}

// getRepayment returns the partner's repayment request; a foreign one is not found.
func getRepayment(ctx context.Context, d Deps, partnerID, id uuid.UUID) (*domain.Repayment, error) {
	r, err := d.Repayments.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.PartnerID() != partnerID {
		return nil, domain.ErrRepaymentNotFound
	}
	return r, nil
}
