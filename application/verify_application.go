package application

import (
	"context"
	"fmt"
	"time"

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
	clock        ports.Clock
	applications ports.ApplicationRepository
	scoring      ports.Scoring
	rq           Requests
	product      Product
	ttl          time.Duration
}

// NewVerifyApplicationHandler returns the handler on the ports it uses.
func NewVerifyApplicationHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	applications ports.ApplicationRepository, scoring ports.Scoring, cfg Config) *VerifyApplicationHandler {
	return &VerifyApplicationHandler{
		clock:        clock,
		applications: applications,
		scoring:      scoring,
		rq:           Requests{UoW: uow, Store: idempotency},
		product:      cfg.Product,
		ttl:          cfg.ApplicationTTL,
	}
}

// Handle verifies the offer. The post-scoring call is made outside the transaction, with an
// idempotency key derived from the application and the offer, so a retry asks the same question.
//
// Steps: a stored answer is replayed without asking post-scoring again; post-scoring is asked
// outside any transaction; one transaction records its answer on the application with the
// request's claim and answer. A crash before that transaction leaves nothing: a retry asks
// again, with the same key. An application past its TTL is not asked about: the transaction
// records its expiry and refuses.
func (h *VerifyApplicationHandler) Handle(ctx context.Context, call Call, cmd VerifyApplication) (Reply[VerifyResult], error) {
	if prior, err := lookup[VerifyResult](ctx, h.rq, call); err != nil || prior.ended {
		return prior.reply, err
	}
	answer, err := h.postScore(ctx, cmd)
	if err != nil {
		return refuse[VerifyResult](ctx, h.rq, call, err)
	}
	return finish(ctx, h.rq, call, func(ctx context.Context) (VerifyResult, error) {
		now := h.clock.Now(cmd.PartnerID)
		err := updateOwned(ctx, h.applications, cmd.PartnerID, cmd.ApplicationID, now, h.ttl, func(a *domain.Application) error {
			return a.Verify(cmd.Offer, answer, now)
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
	})
}

// postScore checks the offer against the application and the cap, then asks post-scoring.
func (h *VerifyApplicationHandler) postScore(ctx context.Context, cmd VerifyApplication) (domain.PostScoreResult, error) {
	a, err := getOwned(ctx, h.applications, cmd.PartnerID, cmd.ApplicationID)
	if err != nil {
		return domain.PostScoreResult{}, err
	}
	now := h.clock.Now(cmd.PartnerID)
	if a.Expired(now, h.ttl) {
		return domain.PostScoreResult{}, nil // nothing to ask: the next step records the expiry and refuses
	}
	if err := a.CheckOffer(cmd.Offer); err != nil {
		return domain.PostScoreResult{}, err
	}
	o := cmd.Offer
	if err := h.checkCap(o, now); err != nil {
		return domain.PostScoreResult{}, err
	}
	answer, err := h.scoring.PostScore(ctx, ports.PostScoreRequest{
		IdempotencyKey: fmt.Sprintf("%s:POST_SCORING:%d:%d:%d:%s", a.ID(), o.Amount, o.Percent.Hundredths(), o.MonthPeriod, o.BackupPhone),
		ApplicationID:  a.ID(), Offer: o, ClientData: a.ClientData(),
	})
	if err != nil {
		return domain.PostScoreResult{}, gatewayError(err)
	}
	return answer, nil
}

// checkCap refuses an offer whose scheduled interest and service alone would break the
// Central Bank's cap (half of the amount in any 365 days) for any issue date in the offer's
// lifetime: from today until the application would expire.
func (h *VerifyApplicationHandler) checkCap(o domain.Offer, now time.Time) error {
	return domain.CheckCapForIssueDates(h.product.offerTerms(o), domain.BusinessDate(now), domain.BusinessDate(now.Add(h.ttl)))
}
