package application

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// reconcileBatch bounds the work of one reconciler pass; the next pass takes the rest.
const reconcileBatch = 500

// ReconcileReport counts what one reconciler pass did.
type ReconcileReport struct {
	Enqueued, Expired, Verified, TransfersSettled, Contracts, CardOrders int
}

// unknownOutcomeAfter is how long a transfer may stay PROCESSING before the reconciler asks
// the network for its outcome.
const unknownOutcomeAfter = 30 * time.Second

// ReconcileHandler is the periodic safety net of background work: it enqueues due stages
// whose job was lost (a crash between commit and enqueue), expires applications that waited
// too long, and in the sandbox completes phone calls after the configured delay. Every fact is
// decided against the Clock.
type ReconcileHandler struct {
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Queue        ports.WorkQueue
	CoreBanking  ports.CoreBanking
	Transfers    ports.TransferRepository
	Processing   ports.Processing
	CardOrders   ports.CardOrderRepository
	Settlement   TransferSettlement
	Orders       *ProcessCardOrderHandler
	Cfg          Config
}

// Handle runs one pass: the same work for each set of partners that share one time, decided
// against that time.
func (h *ReconcileHandler) Handle(ctx context.Context) (ReconcileReport, error) {
	var rep ReconcileReport
	for _, s := range timeScopes(h.Clock) {
		if err := h.pass(ctx, s, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// pass runs the reconciler's work on one set of partners.
func (h *ReconcileHandler) pass(ctx context.Context, s timeScope, rep *ReconcileReport) error {
	now := s.now
	due, err := h.Applications.ListDue(ctx, s.partners, now, reconcileBatch)
	if err != nil {
		return err
	}
	if len(due) > 0 {
		// A job is written in a transaction; these are due already, so it is the job's alone.
		if err := h.UoW.Do(ctx, func(ctx context.Context) error { return h.Queue.EnqueueApplications(ctx, due...) }); err != nil {
			return err
		}
		rep.Enqueued += len(due)
	}
	if h.Cfg.ApplicationTTL > 0 {
		ids, err := h.Applications.ListPendingBefore(ctx, s.partners, now.Add(-h.Cfg.ApplicationTTL), reconcileBatch)
		if err != nil {
			return err
		}
		n, err := h.each(ctx, ids, func(a *domain.Application) error {
			if !a.Expire(h.Clock.Now(a.PartnerID()), h.Cfg.ApplicationTTL) {
				return errUnchanged
			}
			return nil
		})
		rep.Expired += n
		if err != nil {
			return err
		}
	}
	if err := h.Settlement.releaseExpired(ctx, s.partners, uuid.Nil, now); err != nil {
		return err
	}
	n, err := h.settleUnknownCredits(ctx, s)
	rep.TransfersSettled += n
	if err != nil {
		return err
	}
	n, err = h.assignContracts(ctx, s)
	rep.Contracts += n
	if err != nil {
		return err
	}
	n, err = h.processCardOrders(ctx, s)
	rep.CardOrders += n
	if err != nil {
		return err
	}
	if h.Cfg.SandboxCallDelay > 0 {
		ids, err := h.Applications.ListAwaitingCall(ctx, s.partners, now.Add(-h.Cfg.SandboxCallDelay), reconcileBatch)
		if err != nil {
			return err
		}
		n, err := h.each(ctx, ids, func(a *domain.Application) error {
			return a.CompleteVerification(h.Clock.Now(a.PartnerID()))
		})
		rep.Verified += n
		if err != nil {
			return err
		}
	}
	return nil
}

var errUnchanged = errors.New("unchanged")

// assignContracts asks core banking for the contract numbers of loans issued longer ago than
// the contract delay; a loan whose number is not ready is asked again on the next pass.
func (h *ReconcileHandler) assignContracts(ctx context.Context, s timeScope) (int, error) {
	ids, err := h.Loans.ListAwaitingContract(ctx, s.partners, s.now.Add(-h.Cfg.LoanContractDelay), reconcileBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		l, err := h.Loans.Get(ctx, id)
		if err != nil {
			return n, err
		}
		number, err := h.CoreBanking.ContractNumber(ctx, ports.ContractRequest{IdempotencyKey: id.String() + ":CONTRACT",
			ApplicationID: l.ApplicationID(), AccountNumber: l.State().AccountNumber})
		if err != nil {
			continue // not assigned yet: ask again on the next pass
		}
		err = h.UoW.Do(ctx, func(ctx context.Context) error {
			return h.Loans.Update(ctx, id, func(l *domain.Loan) error {
				if l.ContractNumber() != "" {
					return errUnchanged
				}
				return l.AssignContract(number, h.Clock.Now(l.PartnerID()))
			})
		})
		switch {
		case err == nil:
			n++
		case errors.Is(err, errUnchanged):
		default:
			return n, err
		}
	}
	return n, nil
}

// settleUnknownCredits asks the network for the outcome of credits whose answer was lost.
func (h *ReconcileHandler) settleUnknownCredits(ctx context.Context, s timeScope) (int, error) {
	ids, err := h.Transfers.ListProcessingBefore(ctx, s.partners, s.now.Add(-unknownOutcomeAfter), reconcileBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		t, err := h.Transfers.Get(ctx, id)
		if err != nil {
			return n, err
		}
		order := creditOrder(t)
		result, err := h.Processing.CreditStatus(ctx, order)
		if err != nil {
			continue // still unknown: ask again next pass
		}
		err = h.Settlement.settle(ctx, id, func(t *domain.Transfer) (bool, error) {
			return true, t.Settle(result.Credited, result.Reason, h.Clock.Now(t.PartnerID()))
		})
		if err != nil && !errors.Is(err, domain.ErrTransferState) {
			return n, err
		}
		n++
	}
	return n, nil
}

// each applies fn to every application in its own transaction and counts the changes; an
// application that moved on meanwhile is skipped.
func (h *ReconcileHandler) each(ctx context.Context, ids []uuid.UUID, fn func(a *domain.Application) error) (int, error) {
	n := 0
	for _, id := range ids {
		err := h.UoW.Do(ctx, func(ctx context.Context) error { return h.Applications.Update(ctx, id, fn) })
		switch {
		case err == nil:
			n++
		case errors.Is(err, errUnchanged), errors.Is(err, domain.ErrWrongState):
		default:
			return n, err
		}
	}
	return n, nil
}

// processCardOrders takes every due card order a step; one order's failure does not hold up
// the others.
func (h *ReconcileHandler) processCardOrders(ctx context.Context, s timeScope) (int, error) {
	ids, err := h.CardOrders.ListDue(ctx, s.partners, s.now, reconcileBatch)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, id := range ids {
		errs = append(errs, h.Orders.Handle(ctx, id))
	}
	return len(ids), errors.Join(errs...)
}
