package http

import (
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/tiyin/tiyin/domain"
)

// limiter is the per-partner rate limit (TIYIN_RATE_LIMIT): a token bucket per partner, filled
// at perSecond and holding twice that. It is per process: N nodes let a partner make N times
// the limit, which docs/operations.md says.
type limiter struct {
	perSecond int
	buckets   sync.Map // partner id → *rate.Limiter
}

func newLimiter(perSecond int) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{perSecond: perSecond}
}

func (l *limiter) allow(partner uuid.UUID) bool {
	b, ok := l.buckets.Load(partner)
	if !ok {
		b, _ = l.buckets.LoadOrStore(partner, rate.NewLimiter(rate.Limit(l.perSecond), 2*l.perSecond))
	}
	return b.(*rate.Limiter).Allow()
}

// rateLimit refuses a partner's request over its limit with code 7 before anything runs.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	if s.limit == nil {
		return next
	}
	return func(c echo.Context) error {
		p, ok := c.Get(ctxPartner).(domain.Partner)
		if !ok || s.limit.allow(p.ID) {
			return next(c)
		}
		s.d.Metrics.RateLimited(p.Name)
		c.Response().Header().Set("Retry-After", "1")
		return s.refuse(c, &apiError{code: codeRateLimited, message: fmt.Sprintf(
			"rate limit exceeded: at most %d requests per second per partner (bursts of %d); retry later with the same id",
			s.limit.perSecond, 2*s.limit.perSecond)})
	}
}
