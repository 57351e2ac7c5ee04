package http

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// loanIDParams decodes params holding only loanId, the loan contract number.
func loanIDParams(raw json.RawMessage) (string, error) {
	var fs domain.Fieldset
	in := decodeParams[api.LoanIdParams](raw, &fs)
	loanID, err := domain.ParseContractNumber(in.LoanId)
	fs.Check("params.loanId", err)
	return loanID, fs.Err()
}

func (s *Server) listPayments(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	loanID, err := loanIDParams(raw)
	if err != nil {
		return nil, err
	}
	payments, err := s.d.App.Loans.ListPayments.Handle(ctx, application.ListPayments{PartnerID: p.ID, LoanID: loanID})
	if err != nil {
		return nil, err
	}
	items := make([]api.PaymentItem, len(payments))
	for i, pm := range payments {
		items[i] = api.PaymentItem{PaymentDate: businessTime(pm.At), TotalRepaymentAmount: pm.Amount,
			LoanRepaymentAmount: pm.Principal, AccruedInterestAmount: pm.Interest,
			Channel: api.PaymentChannel(pm.Channel.String()), Recovery: pm.Recovery}
	}
	return api.ListPaymentsResult{Payments: items}, nil
}

func (s *Server) checkRepayment(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	loanID, err := loanIDParams(raw)
	if err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Repayments.CheckRepayment.Handle(ctx, w.call(), application.CheckRepayment{PartnerID: p.ID, LoanID: loanID})
	return rendered(reply, err, checkRepaymentResult)
}

func checkRepaymentResult(q application.RepaymentQuote) api.CheckRepaymentResult {
	pos := q.Debt
	return api.CheckRepaymentResult{RequestId: q.RequestID.String(), LoanId: q.LoanID, ClientName: q.ClientName,
		AccountBalance: q.AccountBalance, TotalResidue: pos.Payoff(), MainDebtAmount: pos.NotDuePrincipal,
		OverdueDebtAmount: pos.OverduePrincipal, TermInterestAmount: pos.TermInterest,
		OverdueInterestAmount: pos.OverdueInterest, InterestFineAmount: pos.Penalty, MaxAmount: pos.Payoff()}
}

func (s *Server) payRepayment(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.PayRepaymentParams](raw, &fs)
	loanID, err := domain.ParseContractNumber(in.LoanId)
	fs.Check("params.loanId", err)
	typ, err := domain.ParsePaymentType(string(in.PaymentType))
	fs.Check("params.paymentType", err)
	network, err := domain.ParseNetwork(string(in.ProcessingType))
	fs.Check("params.processingType", err)
	if n := len(in.DebitId); n < 1 || n > 64 {
		fs.Add("params.debitId", "must be 1 to 64 characters")
	}
	if in.RequestId == "" {
		fs.Add("params.requestId", "must not be empty")
	}
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	// Every requestId tiyin issues is a UUID: anything else names no request (uuid.Nil finds none).
	requestID, _ := parseUUID(in.RequestId)
	reply, err := s.d.App.Repayments.PayRepayment.Handle(ctx, w.call(), application.PayRepayment{PartnerID: p.ID, ExternalID: uuid.MustParse(w.req.id),
		LoanID: loanID, RequestID: requestID, Type: typ, DebitID: in.DebitId, Amount: in.Amount, Network: network})
	return rendered(reply, err, func(v application.PaidRepayment) any {
		return api.PayRepaymentResult{LoanId: v.LoanID, RequestId: v.RequestID.String(), Status: api.RepaymentStatus(v.Status.String()), Message: v.Message}
	})
}

func (s *Server) getRepayment(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.GetRepaymentParams](raw, &fs)
	requestID, err := parseUUID(in.RequestId)
	fs.Check("params.requestId", err)
	q := application.GetRepayment{PartnerID: p.ID, RequestID: requestID}
	if in.ExternalId != nil {
		ext, err := parseUUID(*in.ExternalId)
		fs.Check("params.externalId", err)
		q.ExternalID = &ext
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	v, err := s.d.App.Repayments.GetRepayment.Handle(ctx, q)
	if err != nil {
		return nil, err
	}
	r := v.Repayment
	res := api.GetRepaymentResult{RequestId: r.ID().String(), LoanId: r.ContractNumber(),
		RequestStatus: api.RepaymentStatus(v.Status.String()), Message: v.Message}
	if pm := r.Payment(); pm != nil {
		ext, tx := pm.ExternalID.String(), pm.TransactionID.String()
		res.ExternalId, res.TransactionId = &ext, &tx
	}
	if v.Status == domain.RepaymentFailed || v.Status == domain.RepaymentExpired {
		res.RequestErrorMessage = &v.Message
	}
	return res, nil
}
