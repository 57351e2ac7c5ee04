package http

import (
	"context"
	"encoding/json"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) getLoan(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	id, err := applicationIDParams(raw)
	if err != nil {
		return nil, err
	}
	v, err := s.d.App.Loans.GetLoan.Handle(ctx, application.GetLoan{PartnerID: p.ID, ApplicationID: id})
	if err != nil {
		return nil, err
	}
	l := v.Loan
	r := api.GetLoanResult{ApplicationId: l.ApplicationID().String(), Amount: l.Amount().Tiyin(), MonthPeriod: l.MonthPeriod(),
		Rate: l.Rate().Float(), TotalResidue: v.Position.Payoff(), TotalFine: v.Position.Fine(),
		Status: api.GetLoanResultStatus(l.Status().String())}
	if n := l.ContractNumber(); n != "" {
		r.LoanId = &n
	}
	return r, nil
}

func (s *Server) getSchedule(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	loanID, err := loanIDParams(raw)
	if err != nil {
		return nil, err
	}
	v, err := s.d.App.Loans.GetSchedule.Handle(ctx, application.GetSchedule{PartnerID: p.ID, LoanID: loanID})
	if err != nil {
		return nil, err
	}
	items := make([]api.ScheduleItem, len(v.Schedule))
	for i, it := range v.Schedule {
		items[i] = api.ScheduleItem{PaymentDate: businessTime(midnight(it.PaymentDate)), PeriodDays: it.PeriodDays,
			TotalResidue: it.Residue, TotalRepaymentAmount: it.Total(), LoanRepaymentAmount: it.Principal,
			AccruedInterestAmount: it.Interest, ServicePercentageAmount: it.Service}
	}
	return api.GetScheduleResult{Schedule: items}, nil
}
