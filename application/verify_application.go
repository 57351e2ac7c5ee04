package application

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// VerifyApplication submits the client's chosen offer after pre-scoring (endpoint 3).
type VerifyApplication struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
	Offer         domain.Offer
}

// VerifyResult tells whether the client must call the bank before issuance.
type VerifyResult struct {
	PhoneCallRequired bool
	CallCentrePhone   string
	Rejected          bool
	Reason            string
}

// VerifyApplicationHandler checks the offer, asks post-scoring synchronously and records the
// answer.
type VerifyApplicationHandler struct {
	d       Deps
	product Product
}

// Handle verifies the offer. The post-scoring call is made outside the transaction, with an
// idempotency key derived from the application and the offer, so a retry asks the same question.
func (h *VerifyApplicationHandler) Handle(ctx context.Context, cmd VerifyApplication) (VerifyResult, error) {
	a, err := getOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID)
	if err != nil {
		return VerifyResult{}, err
	}
	if err := a.CheckOffer(cmd.Offer); err != nil {
		return VerifyResult{}, err
	}
	o := cmd.Offer
	if err := h.checkCap(o); err != nil {
		return VerifyResult{}, err
	}
	answer, err := h.d.Scoring.PostScore(ctx, ports.PostScoreRequest{
		IdempotencyKey: fmt.Sprintf("%s:POST_SCORING:%d:%d:%d:%s", a.ID(), o.Amount, o.Percent.Hundredths(), o.MonthPeriod, o.BackupPhone),
		ApplicationID:  a.ID(), Offer: o, ClientData: a.ClientData(),
	})
	if err != nil {
		return VerifyResult{}, gatewayError(err)
	}
	err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
		return updateOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID, func(a *domain.Application) error {
			return a.Verify(o, answer, h.d.Clock.Now())
		})
	})
	if err != nil {
		return VerifyResult{}, err
	}
	return VerifyResult{
		PhoneCallRequired: answer.Approved && answer.PhoneCallRequired,
		CallCentrePhone:   answer.CallCentrePhone,
		Rejected:          !answer.Approved,
		Reason:            answer.Reason,
	}, nil
}

// checkCap refuses an offer whose scheduled interest and service alone would break the
// Central Bank's cap (half of the amount in any 365 days), for a loan issued today.
func (h *VerifyApplicationHandler) checkCap(o domain.Offer) error {
	terms := domain.LoanTerms{Amount: o.Amount, MonthPeriod: o.MonthPeriod, Rate: o.Percent,
		ServiceRate: h.product.ServiceRate, Type: h.product.ScheduleType, IssuedOn: domain.BusinessDate(h.d.Clock.Now())}
	items, err := domain.BuildSchedule(terms)
	if err != nil {
		return fmt.Errorf("%w: %w", domain.ErrOfferOutOfRange, err)
	}
	if !domain.ScheduledChargesWithinCap(terms, items) {
		return fmt.Errorf("%w: scheduled interest and service would exceed half of the amount within a year (Central Bank cap)", domain.ErrOfferOutOfRange)
	}
	return nil
}
