package console

import (
	"context"
	"fmt"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// EnrolSecondFactor is the code an operator's authenticator app shows for the secret they were
// given (BeginEnrolment), which confirms the enrolment.
type EnrolSecondFactor struct {
	Code string
}

// EnrolSecondFactorHandler completes operators' enrolments.
type EnrolSecondFactorHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Factors   ports.SecondFactorRepository
	Audit     Audit
}

// Handle enrols the factor being enrolled when the code is one its secret makes now
// (domain.ErrWrongCode when not; domain.ErrSecondFactorEnrolled when it is enrolled already), and returns the operator's recovery codes, to be shown this once (only their
// hashes are kept), and the session that replaces s: every session of the operator ends, this
// one included, and a new one that proved the second factor begins (a new token, so a token
// seen before the enrolment opens nothing after it). The code's time step is used up.
func (h *EnrolSecondFactorHandler) Handle(ctx context.Context, s Session, cmd EnrolSecondFactor) (Session, []domain.RecoveryCode, error) {
	who := s.Operator
	f, err := h.Factors.Factor(ctx, who.ID, domain.FactorTOTP)
	switch {
	case err != nil:
		return Session{}, nil, err
	case f.Enrolled():
		return Session{}, nil, domain.ErrSecondFactorEnrolled
	}
	now := h.Audit.now()
	step, ok := totpStep(f.Secret(), cmd.Code, now)
	if !ok {
		return Session{}, nil, domain.ErrWrongCode
	}
	codes, hashes := newRecoveryCodes()
	next := s
	next.Token, next.CSRF, next.MustEnrol = application.NewToken(32), application.NewToken(20), false
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Factors.UpdateFactor(ctx, f.ID(), func(f *domain.SecondFactor) error { return f.Enrol(step, now) }); err != nil {
			return err
		}
		if err := h.Factors.ReplaceRecoveryCodes(ctx, who.ID, hashes, now); err != nil {
			return err
		}
		if err := h.Operators.DeleteSessions(ctx, who.ID, nil); err != nil {
			return err
		}
		if err := h.Operators.CreateSession(ctx, ports.OperatorSession{TokenHash: application.HashAPIKey(next.Token), OperatorID: who.ID,
			CSRF: next.CSRF, CreatedAt: now, LastSeenAt: now, SecondFactor: true}); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "second_factor.enrol", "operator:"+who.Name,
			fmt.Sprintf("%s, %d recovery codes; every other session ended", f.Kind(), len(codes)))
	})
	if err != nil {
		return Session{}, nil, err
	}
	return next, codes, nil
}
