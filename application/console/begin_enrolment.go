package console

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Enrolment is what an operator's authenticator app needs to enrol: the secret, as text to
// type, and its otpauth:// URL, which the enrolment page shows as a QR code.
type Enrolment struct {
	Secret, URL string
}

// BeginEnrolmentHandler gives an operator without a second factor the secret to enrol one
// with, at their first login (after the one-time password is changed) and at the first login
// after a reset.
type BeginEnrolmentHandler struct {
	UoW     ports.UnitOfWork
	Factors ports.SecondFactorRepository
	Audit   Audit
}

// Handle returns the secret of the factor the operator is enrolling, made (and audited as
// second_factor.begin) at the first call of their session: a login drops a secret an earlier
// session was shown. Once the factor is enrolled it answers domain.ErrSecondFactorEnrolled:
// a secret is never shown again.
func (h *BeginEnrolmentHandler) Handle(ctx context.Context, who Actor) (Enrolment, error) {
	f, err := h.Factors.Factor(ctx, who.ID, domain.FactorTOTP)
	if errors.Is(err, domain.ErrNoSecondFactor) {
		key, err := newTOTPKey(who.Name)
		if err != nil {
			return Enrolment{}, err
		}
		if err := h.UoW.Do(ctx, func(ctx context.Context) error {
			created, err := h.Factors.CreateFactor(ctx, domain.NewTOTPFactor(application.NewID(), who.ID, key.Secret(), h.Audit.now()))
			if err != nil || !created {
				return err
			}
			return h.Audit.record(ctx, who, "second_factor.begin", "operator:"+who.Name, domain.FactorTOTP.String())
		}); err != nil {
			return Enrolment{}, err
		}
		f, err = h.Factors.Factor(ctx, who.ID, domain.FactorTOTP)
		if err != nil {
			return Enrolment{}, err
		}
	} else if err != nil {
		return Enrolment{}, err
	}
	if f.Enrolled() {
		return Enrolment{}, domain.ErrSecondFactorEnrolled
	}
	key, err := totpKey(f.Secret(), who.Name)
	if err != nil {
		return Enrolment{}, err
	}
	return Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}
