package console

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// touchEvery is how stale a session's last-seen time may get before a request writes it again:
// a page view is a read, and writes once a minute at most.
const touchEvery = time.Minute

// ResumeSessionHandler finds the operator behind a console request's session cookie.
type ResumeSessionHandler struct {
	Operators ports.OperatorRepository
	Clock     ports.Clock
}

// Handle returns the session of token, or ports.ErrNoSession when there is none, it was idle
// longer than domain.SessionIdle, it is older than domain.SessionLifetime, or its operator is
// disabled (the session is then ended).
func (h *ResumeSessionHandler) Handle(ctx context.Context, token, address string) (Session, error) {
	hash := application.HashAPIKey(token)
	s, err := h.Operators.Session(ctx, hash)
	if err != nil {
		return Session{}, err
	}
	now := h.Clock.Now(uuid.Nil)
	o, err := h.Operators.Get(ctx, s.OperatorID)
	if err != nil && !errors.Is(err, domain.ErrOperatorNotFound) {
		return Session{}, err
	}
	if err != nil || !o.MayLogIn() || now.Sub(s.LastSeenAt) >= domain.SessionIdle || now.Sub(s.CreatedAt) >= domain.SessionLifetime {
		if err := h.Operators.DeleteSessions(ctx, s.OperatorID, hash); err != nil {
			return Session{}, err
		}
		return Session{}, ports.ErrNoSession
	}
	if now.Sub(s.LastSeenAt) >= touchEvery {
		if err := h.Operators.TouchSession(ctx, hash, now); err != nil {
			return Session{}, err
		}
	}
	return Session{Token: token, CSRF: s.CSRF, MustChangePassword: o.MustChangePassword(), MustEnrol: !s.SecondFactor, Language: o.Language(),
		Operator: Actor{ID: o.ID(), Name: o.Name(), Role: o.Role(), Address: address}}, nil
}
