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

// PaidRepayment is a paid repayment request and its status.
type PaidRepayment struct {
	RequestID uuid.UUID
	LoanID    string
	Status    domain.RepaymentStatus
	Message   string
}

// PayRepaymentHandler verifies the debit with the processing network and then, in one
// transaction under the request's and the loan's row locks, applies the payment in the legal
// order, posts it and records it on the request. A refused pay changes nothing: neither the
// request nor the debit is used up.
type PayRepaymentHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Ledger     ports.LedgerRepository
	Processing ports.Processing
	Repayments ports.RepaymentRepository
	Requests   Requests
}

// Handle answers with the paid request and its status.
//
// Steps: a stored answer is replayed without asking the network again; what can be refused is
// refused before the network is asked (outside any transaction) to verify the debit; one
// transaction applies the payment, posts it and stores the request's claim and answer. A
// crash before that transaction leaves nothing: a retry asks the network again.
func (h *PayRepaymentHandler) Handle(ctx context.Context, call Call, cmd PayRepayment) (Reply[PaidRepayment], error) {
	if prior, err := lookup[PaidRepayment](ctx, h.Requests, call); err != nil || prior.ended {
		return prior.reply, err
	}
	r, err := h.verifyDebit(ctx, cmd)
	if err != nil {
		return refuse[PaidRepayment](ctx, h.Requests, call, err)
	}
	return finish(ctx, h.Requests, call, func(ctx context.Context) (PaidRepayment, error) {
		var paid *domain.Repayment
		var version int
		var posting domain.Posting
		err := h.Repayments.Update(ctx, r.ID(), func(r *domain.Repayment) error {
			paid = r
			return h.Loans.Update(ctx, r.LoanID(), func(loan *domain.Loan) error {
				var err error
				posting, err = r.Pay(loan, domain.Payment{Type: cmd.Type, Amount: cmd.Amount, DebitID: cmd.DebitID,
					Network: cmd.Network, ExternalID: cmd.ExternalID, TransactionID: NewID(), At: h.Clock.Now(cmd.PartnerID)})
				version = loan.Repayments()
				return err
			})
		})
		if err != nil {
			return PaidRepayment{}, err
		}
		if err := h.Ledger.Post(ctx, posting); err != nil {
			return PaidRepayment{}, err
		}
		status, msg := paid.StatusAt(h.Clock.Now(cmd.PartnerID), version)
		return PaidRepayment{RequestID: paid.ID(), LoanID: paid.ContractNumber(), Status: status, Message: msg}, nil
	})
}

// verifyDebit refuses what can be refused before asking the network, then has the network
// verify the debit: the request to pay.
func (h *PayRepaymentHandler) verifyDebit(ctx context.Context, cmd PayRepayment) (*domain.Repayment, error) {
	r, err := getRepayment(ctx, h.Repayments, cmd.PartnerID, cmd.RequestID)
	if err != nil {
		return nil, err
	}
	if r.ContractNumber() != cmd.LoanID {
		return nil, domain.ErrRepaymentNotFound
	}
	loan, err := h.Loans.Get(ctx, r.LoanID())
	if err != nil {
		return nil, err
	}
	if err := r.Payable(loan, h.Clock.Now(cmd.PartnerID), cmd.Amount); err != nil {
		return nil, err
	}
	debit, err := h.Processing.LookupDebit(ctx, ports.DebitQuery{DebitID: cmd.DebitID, Network: cmd.Network, Amount: cmd.Amount,
		At: h.Clock.Now(cmd.PartnerID)})
	if err != nil {
		if errors.Is(err, domain.ErrDebitRejected) {
			return nil, err
		}
		return nil, gatewayError(err)
	}
	return r, domain.VerifyDebit(debit, cmd.Amount, cmd.Network)
}
