package console

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ResetSecondFactor removes an operator's second factor, for one whose device is lost: they
// enrol a new one at their next login.
type ResetSecondFactor struct {
	Name string
}

// ResetSecondFactorHandler resets second factors. In the console a reset is an access grant
// that a second admin approves (DecideOperatorGrant), so that no admin alone can take an
// operator's place; from the command line (`tiyin operator reset-second-factor`), run by
// whoever holds the host, it is at once: the break glass, audited as such.
type ResetSecondFactorHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	factors   ports.SecondFactorRepository
	audit     audit
}

// NewResetSecondFactorHandler returns the handler on the ports it uses.
func NewResetSecondFactorHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository,
	factors ports.SecondFactorRepository, log ports.AuditLog) *ResetSecondFactorHandler {
	return &ResetSecondFactorHandler{uow: uow, operators: operators, factors: factors, audit: audit{clock: clock, log: log}}
}

// Handle asks for the reset (pending: a second admin approves it; audited as
// operator.second_factor.reset) or, from the command line, removes the factor and its
// recovery codes and ends the operator's sessions at once (operator.second_factor.break_glass).
// An operator with no enrolled factor has nothing to reset (domain.ErrNoSecondFactor).
func (h *ResetSecondFactorHandler) Handle(ctx context.Context, who Actor, cmd ResetSecondFactor) (pending bool, err error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return false, err
	}
	o, err := h.operators.ByName(ctx, cmd.Name)
	if err != nil {
		return false, err
	}
	f, err := h.factors.Factor(ctx, o.ID(), domain.FactorTOTP)
	switch {
	case errors.Is(err, domain.ErrNoSecondFactor) || err == nil && !f.Enrolled():
		return false, domain.ErrNoSecondFactor
	case err != nil:
		return false, err
	}
	now := h.audit.now()
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		if !who.local() {
			if err := h.operators.Update(ctx, o.ID(), func(o *domain.Operator) error { return o.AskSecondFactorReset(who.Name, now) }); err != nil {
				return err
			}
			return h.audit.record(ctx, who, "operator.second_factor.reset", "operator:"+o.Name(), "awaiting a second admin")
		}
		if err := h.operators.Update(ctx, o.ID(), func(o *domain.Operator) error { o.BreakGlassSecondFactor(who.Name, now); return nil }); err != nil {
			return err
		}
		if err := h.factors.RemoveFactors(ctx, o.ID()); err != nil {
			return err
		}
		if err := h.operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "operator.second_factor.break_glass", "operator:"+o.Name(),
			"break glass: second factor and recovery codes removed at once, sessions ended; no second admin")
	})
	return !who.local(), err
}
