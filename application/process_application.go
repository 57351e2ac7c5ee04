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

// GatewayTimeout bounds every gateway call a stage makes; a call that runs out is treated as
// an unknown outcome and repeated with the same idempotency key.
const GatewayTimeout = 10 * time.Second

// maxStepsPerRun bounds one run of the worker, so a misbehaving gateway cannot pin a worker.
const maxStepsPerRun = 16

// ProcessApplicationHandler runs an application's background stages (pre-scoring and the five
// issuance stages) against the gateways. It is what the application worker calls.
type ProcessApplicationHandler struct{ d Deps }

// Handle runs every stage that is due now, one transaction to start a stage and one to record
// its answer, with the gateway call in between and outside any transaction. It returns how
// long until the next stage is due (zero when the application waits for nobody).
func (h *ProcessApplicationHandler) Handle(ctx context.Context, id uuid.UUID) (time.Duration, error) {
	for range maxStepsPerRun {
		a, err := h.d.Applications.Get(ctx, id)
		if errors.Is(err, domain.ErrApplicationNotFound) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		now := h.d.Clock.Now()
		stage, due := a.DueStep(now)
		if !due {
			if next := a.NextRunAt(); !next.IsZero() && (a.Status() == domain.StatusNew || a.Status() == domain.StatusInProgress) {
				return max(next.Sub(now), time.Millisecond), nil
			}
			return 0, nil
		}
		err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
			return h.d.Applications.Update(ctx, id, func(a *domain.Application) error {
				return a.BeginStep(stage, h.d.Clock.Now())
			})
		})
		if errors.Is(err, domain.ErrStaleStep) {
			continue
		}
		if err != nil {
			return 0, err
		}
		result, err := h.call(ctx, a, stage)
		if err != nil {
			return 0, err
		}
		err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
			var loan *domain.Loan
			err := h.d.Applications.Update(ctx, id, func(a *domain.Application) error {
				var err error
				loan, err = a.CompleteStep(stage, result, domain.LoanIDs{LoanID: newID()}, h.d.Clock.Now())
				return err
			})
			if err != nil || loan == nil {
				return err
			}
			return h.d.Loans.Create(ctx, loan)
		})
		if err != nil && !errors.Is(err, domain.ErrStaleStep) {
			return 0, err
		}
	}
	return time.Millisecond, nil
}

// call makes the stage's gateway call. The idempotency key is the application and the stage,
// so a repeated stage (after a crash or a lost answer) asks the gateway the same question.
func (h *ProcessApplicationHandler) call(ctx context.Context, a *domain.Application, stage domain.TaskName) (domain.StepResult, error) {
	ctx, cancel := context.WithTimeout(ctx, GatewayTimeout)
	defer cancel()
	key := func(s domain.TaskName) string { return fmt.Sprintf("%s:%s", a.ID(), s) }
	preScore := ports.PreScoreRequest{IdempotencyKey: key(domain.TaskPreScoring),
		ApplicationID: a.ID(), Phone: a.Phone(), ClientData: a.ClientData()}
	var (
		ref    string
		answer ports.Answer
		pre    ports.PreScoreAnswer
		err    error
		polled bool
	)
	switch stage {
	case domain.TaskPreScoring:
		err = h.d.Scoring.RequestPreScore(ctx, preScore)
	case domain.TaskPreScoringInfo:
		pre, err = h.d.Scoring.PreScoreResult(ctx, preScore)
		answer, polled = pre.Answer, true
	case domain.TaskOpenAccount:
		ref, err = h.d.CoreBanking.OpenAccount(ctx, ports.OpenAccountRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), Phone: a.Phone(), ClientData: a.ClientData()})
	case domain.TaskOpenLoanApplication:
		ref, err = h.d.CoreBanking.OpenLoanApplication(ctx, ports.LoanApplicationRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), AccountNumber: a.AccountNumber(), Offer: *a.Offer()})
	case domain.TaskGetOpenLoanApplicationResult:
		answer, err = h.d.CoreBanking.LoanApplicationResult(ctx, a.CoreRef())
		polled = true
	case domain.TaskLoanIssuance:
		ref, err = h.d.CoreBanking.IssueLoan(ctx, ports.IssueLoanRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), AccountNumber: a.AccountNumber(), LoanApplicationRef: a.CoreRef()})
	case domain.TaskGetLoanIssuanceResult:
		answer, err = h.d.CoreBanking.IssuanceResult(ctx, a.CoreRef())
		polled = true
	default:
		return domain.StepResult{}, fmt.Errorf("no gateway call for stage %s", stage)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return domain.StepResult{}, err // shutting down: the stage stays due
		}
		return stepFailure(err), nil
	}
	if !polled {
		return domain.StepResult{Outcome: domain.OutcomeDone, Ref: ref}, nil
	}
	switch answer.Status {
	case ports.AnswerApproved:
		return domain.StepResult{Outcome: domain.OutcomeDone, PreScore: pre.Result}, nil
	case ports.AnswerDeclined:
		return domain.StepResult{Outcome: domain.OutcomeRefused, Message: answer.Reason}, nil
	default:
		return domain.StepResult{Outcome: domain.OutcomePending}, nil
	}
}

// stepFailure classifies a gateway error by the port's contract.
func stepFailure(err error) domain.StepResult {
	switch {
	case errors.Is(err, ports.ErrGatewayRefused):
		return domain.StepResult{Outcome: domain.OutcomeRefused, Message: err.Error()}
	case errors.Is(err, ports.ErrGatewayFailed):
		return domain.StepResult{Outcome: domain.OutcomeFailed, Message: err.Error()}
	default:
		return domain.StepResult{Outcome: domain.OutcomeTransient, Message: err.Error()}
	}
}

// gatewayError turns a failed synchronous gateway call into the error a partner sees: the
// gateway is unavailable and the same request may be retried.
func gatewayError(err error) error {
	return fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
}
