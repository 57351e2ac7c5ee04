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
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Factors   ports.SecondFactorRepository
	Audit     Audit
}

// Handle asks for the reset (pending: a second admin approves it; audited as
// operator.second_factor.reset) or, from the command line, removes the factor and its
// recovery codes and ends the operator's sessions at once (operator.second_factor.break_glass).
// An operator with no enrolled factor has nothing to reset (domain.ErrNoSecondFactor).
func (h *ResetSecondFactorHandler) Handle(ctx context.Context, who Actor, cmd ResetSecondFactor) (pending bool, err error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return false, err
	}
	o, err := h.Operators.ByName(ctx, cmd.Name)
	if err != nil {
		return false, err
	}
	f, err := h.Factors.Factor(ctx, o.ID(), domain.FactorTOTP)
	switch {
	case errors.Is(err, domain.ErrNoSecondFactor) || err == nil && !f.Enrolled():
		return false, domain.ErrNoSecondFactor
	case err != nil:
		return false, err
	}
	now := h.Audit.now()
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		if !who.local() {
			if err := h.Operators.Update(ctx, o.ID(), func(o *domain.Operator) error { return o.AskSecondFactorReset(who.Name, now) }); err != nil {
				return err
			}
			return h.Audit.record(ctx, who, "operator.second_factor.reset", "operator:"+o.Name(), "awaiting a second admin")
		}
		if err := h.Operators.Update(ctx, o.ID(), func(o *domain.Operator) error { o.BreakGlassSecondFactor(who.Name, now); return nil }); err != nil {
			return err
		}
		if err := h.Factors.RemoveFactors(ctx, o.ID()); err != nil {
			return err
		}
		if err := h.Operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "operator.second_factor.break_glass", "operator:"+o.Name(),
			"break glass: second factor and recovery codes removed at once, sessions ended; no second admin")
	})
	return !who.local(), err
}
