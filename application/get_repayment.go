package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetRepayment reads a repayment request's status (endpoint 14).
type GetRepayment struct {
	PartnerID uuid.UUID
	RequestID uuid.UUID
	// ExternalID, when not nil, must be the envelope id of the request's pay.
	ExternalID *uuid.UUID
}

// RepaymentView is a request with its status now.
type RepaymentView struct {
	Repayment *domain.Repayment
	Status    domain.RepaymentStatus
	Message   string
}

// GetRepaymentHandler answers a repayment request's status; it stores nothing. Expiry and a
// change of the loan since check are decided against the Clock at the call.
type GetRepaymentHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Repayments ports.RepaymentRepository
}

// Handle returns the request and its status.
func (h *GetRepaymentHandler) Handle(ctx context.Context, q GetRepayment) (RepaymentView, error) {
	r, err := getRepayment(ctx, h.Repayments, q.PartnerID, q.RequestID)
	if err != nil {
		return RepaymentView{}, err
	}
	if q.ExternalID != nil && (r.Payment() == nil || r.Payment().ExternalID != *q.ExternalID) {
		return RepaymentView{}, domain.ErrRepaymentNotFound
	}
	loan, err := h.Loans.Get(ctx, r.LoanID())
	if err != nil {
		return RepaymentView{}, err
	}
	status, msg := r.StatusAt(h.Clock.Now(q.PartnerID), loan.Repayments())
	return RepaymentView{Repayment: r, Status: status, Message: msg}, nil
}
