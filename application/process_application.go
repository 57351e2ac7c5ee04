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

// Every gateway call is bounded by the gateway guard (adapters/gateway/guard,
// TIYIN_GATEWAY_TIMEOUT); a call that runs out is an unknown outcome (ports.ErrGatewayTransient)
// and is repeated with the same idempotency key.

// errNothingDue rolls back the read of an application none of whose stages is due.
var errNothingDue = errors.New("no stage due")

// maxStagesPerRun bounds the stages one run of the worker takes, so a misbehaving gateway cannot pin a worker.
const maxStagesPerRun = 16

// ProcessApplicationHandler runs an application's background stages (pre-scoring and the five
// issuance stages) against the gateways. It is what the application worker calls.
type ProcessApplicationHandler struct {
	clock        ports.Clock
	uow          ports.UnitOfWork
	applications ports.ApplicationRepository
	loans        ports.LoanRepository
	scoring      ports.Scoring
	coreBanking  ports.CoreBanking
	ledger       ports.LedgerRepository
	opsLog       ports.OpsLog
	product      Product
}

// NewProcessApplicationHandler returns the handler on the ports it uses.
func NewProcessApplicationHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository,
	loans ports.LoanRepository, scoring ports.Scoring, coreBanking ports.CoreBanking, ledger ports.LedgerRepository,
	opsLog ports.OpsLog, cfg Config) *ProcessApplicationHandler {
	return &ProcessApplicationHandler{
		clock:        clock,
		uow:          uow,
		applications: applications,
		loans:        loans,
		scoring:      scoring,
		coreBanking:  coreBanking,
		ledger:       ledger,
		opsLog:       orNoOpsLog(opsLog),
		product:      cfg.Product,
	}
}

// orNoOpsLog is l, or one that tells nobody.
func orNoOpsLog(l ports.OpsLog) ports.OpsLog {
	if l == nil {
		return ports.NoOpsLog{}
	}
	return l
}

// Handle runs every stage that is due now. Each stage is started in one transaction and its
// answer recorded in the next, which also starts the following stage when it is due at once;
// gateway calls happen between them, outside any transaction. It returns how long until the
// next stage is due (zero when the application waits for nobody).
func (h *ProcessApplicationHandler) Handle(ctx context.Context, id uuid.UUID) (time.Duration, error) {
	var (
		a     *domain.Application
		stage domain.StageName
	)
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.applications.Update(ctx, id, func(x *domain.Application) error {
			a = x
			now := h.clock.Now(x.PartnerID())
			var due bool
			if stage, due = x.DueStage(now); !due {
				return errNothingDue
			}
			return x.BeginStage(stage, now)
		})
	})
	switch {
	case errors.Is(err, errNothingDue):
		return h.wait(a), nil
	case errors.Is(err, domain.ErrApplicationNotFound):
		return 0, nil
	case errors.Is(err, domain.ErrStaleStage):
		return time.Millisecond, nil // another worker got there first; look again
	case err != nil:
		return 0, err
	}
	ctx = ports.WithRequestID(ctx, a.RequestID()) // the log names the request that started the work
	for range maxStagesPerRun {
		result, err := h.call(ctx, a, stage)
		if err != nil {
			return 0, err
		}
		started, wasUnknown, attempt := false, a.OutcomeUnknown(), 0
		err = h.uow.Do(ctx, func(ctx context.Context) error {
			var loan *domain.Loan
			err := h.applications.Update(ctx, id, func(x *domain.Application) error {
				var err error
				now := h.clock.Now(x.PartnerID())
				attempt = x.Attempts() + 1
				if loan, err = x.CompleteStage(stage, result, h.product.LoanProduct(), now); err != nil {
					return err
				}
				a, started = x, false
				if next, due := x.DueStage(now); due {
					stage, started = next, x.BeginStage(next, now) == nil
				}
				return nil
			})
			if err != nil || loan == nil {
				return err
			}
			return h.issue(ctx, loan)
		})
		if errors.Is(err, domain.ErrStaleStage) {
			return 0, nil // canceled meanwhile: the answer is dropped
		}
		if err != nil {
			return 0, err
		}
		h.tell(ctx, a, stage, result, wasUnknown, attempt)
		if !started {
			return h.wait(a), nil
		}
	}
	return time.Millisecond, nil
}

// issue stores the new loan, opens its accounts and moves the principal onto the client's
// demand account, in the transaction that completes the application.
func (h *ProcessApplicationHandler) issue(ctx context.Context, loan *domain.Loan) error {
	return IssueLoan(ctx, h.loans, h.ledger, loan)
}

// IssueLoan is issue for any use case that completes an application's last stage.
func IssueLoan(ctx context.Context, loans ports.LoanRepository, ledger ports.LedgerRepository, loan *domain.Loan) error {
	if err := loans.Create(ctx, loan); err != nil {
		return err
	}
	if err := ledger.OpenLoanAccounts(ctx, loan.ID()); err != nil {
		return err
	}
	p, err := loan.IssuancePosting(NewID())
	if err != nil {
		return err
	}
	return ledger.Post(ctx, p)
}

// wait is how long until the application's next stage is due; zero when none will be.
func (h *ProcessApplicationHandler) wait(a *domain.Application) time.Duration {
	next := a.NextRunAt()
	if next.IsZero() || (a.Status() != domain.StatusNew && a.Status() != domain.StatusInProgress) {
		return 0
	}
	return max(next.Sub(h.clock.Now(a.PartnerID())), time.Millisecond)
}

// call makes the stage's gateway call. The idempotency key is the application and the stage,
// so a repeated stage (after a crash or a lost answer) asks the gateway the same question.
func (h *ProcessApplicationHandler) call(ctx context.Context, a *domain.Application, stage domain.StageName) (domain.StageResult, error) {
	key := func(s domain.StageName) string { return fmt.Sprintf("%s:%s", a.ID(), s) }
	preScore := ports.PreScoreRequest{IdempotencyKey: key(domain.StagePreScoring),
		ApplicationID: a.ID(), Phone: a.Phone(), ClientData: a.ClientData()}
	var (
		ref    string
		answer ports.Answer
		pre    ports.PreScoreAnswer
		err    error
		polled bool
	)
	switch stage {
	case domain.StagePreScoring:
		err = h.scoring.RequestPreScore(ctx, preScore)
	case domain.StagePreScoringInfo:
		pre, err = h.scoring.PreScoreResult(ctx, preScore)
		answer, polled = pre.Answer, true
	case domain.StageOpenAccount:
		ref, err = h.coreBanking.OpenAccount(ctx, ports.OpenAccountRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), Phone: a.Phone(), ClientData: a.ClientData()})
	case domain.StageOpenLoanApplication:
		ref, err = h.coreBanking.OpenLoanApplication(ctx, ports.LoanApplicationRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), AccountNumber: a.AccountNumber(), Offer: *a.Offer()})
	case domain.StageGetOpenLoanApplicationResult:
		answer, err = h.coreBanking.LoanApplicationResult(ctx, a.CoreRef())
		polled = true
	case domain.StageLoanIssuance:
		ref, err = h.coreBanking.IssueLoan(ctx, ports.IssueLoanRequest{IdempotencyKey: key(stage),
			ApplicationID: a.ID(), AccountNumber: a.AccountNumber(), LoanApplicationRef: a.CoreRef(),
			Amount: a.Offer().Amount.Tiyin(), At: h.clock.Now(a.PartnerID())})
	case domain.StageGetLoanIssuanceResult:
		answer, err = h.coreBanking.IssuanceResult(ctx, a.CoreRef())
		polled = true
	default:
		return domain.StageResult{}, fmt.Errorf("no gateway call for stage %s", stage)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return domain.StageResult{}, err // shutting down: the stage stays due
		}
		return stageFailure(err), nil
	}
	if !polled {
		return domain.StageResult{Outcome: domain.OutcomeDone, Ref: ref}, nil
	}
	switch answer.Status {
	case ports.AnswerApproved:
		return domain.StageResult{Outcome: domain.OutcomeDone, PreScore: pre.Result}, nil
	case ports.AnswerDeclined:
		return domain.StageResult{Outcome: domain.OutcomeRefused, Message: answer.Reason}, nil
	default:
		return domain.StageResult{Outcome: domain.OutcomePending}, nil
	}
}

// tell tells the on-call engineer of an application the stage's answer FAILED, and of a stage whose
// outcome stays unknown after its first retry.
func (h *ProcessApplicationHandler) tell(ctx context.Context, a *domain.Application, stage domain.StageName,
	result domain.StageResult, wasUnknown bool, attempt int) {
	f := ports.Failure{PartnerID: a.PartnerID(), Object: "application:" + a.ID().String(), Detail: stage.String(),
		Target: gatewayOf(stage), Attempt: attempt, Reason: result.Message}
	switch {
	case a.Status() == domain.StatusFailed:
		f.Event, f.Final = "application.failed", true
	case result.Outcome == domain.OutcomeUnknown && wasUnknown:
		f.Event = "stage.outcome_unknown"
	default:
		return
	}
	h.opsLog.Failure(ctx, f)
}

// gatewayOf is the gateway port a stage calls.
func gatewayOf(stage domain.StageName) string {
	switch stage {
	case domain.StagePreScoring, domain.StagePreScoringInfo:
		return "scoring"
	}
	return "core_banking"
}

// stageFailure classifies a gateway error by the port's contract (ports/gateways.go): refused,
// failed, never reached, or of unknown outcome.
func stageFailure(err error) domain.StageResult {
	switch {
	case errors.Is(err, ports.ErrGatewayRefused):
		return domain.StageResult{Outcome: domain.OutcomeRefused, Message: err.Error()}
	case errors.Is(err, ports.ErrGatewayFailed):
		return domain.StageResult{Outcome: domain.OutcomeFailed, Message: err.Error()}
	case errors.Is(err, ports.ErrGatewayNotReached):
		return domain.StageResult{Outcome: domain.OutcomeNotReached, Message: err.Error()}
	default: // the bank may have acted: ask again with the same key until it says
		return domain.StageResult{Outcome: domain.OutcomeUnknown, Message: err.Error()}
	}
}
