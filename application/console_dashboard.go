package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The console's "needs attention" thresholds.
const (
	// StuckStageAge is how long an application may wait in one background stage before it is
	// shown to operators.
	StuckStageAge = 15 * time.Minute
	// FailingDeliveryAttempts is how many failed attempts make a webhook delivery failing.
	FailingDeliveryAttempts = 3
	// attentionLimit bounds each kind of trouble the dashboard lists.
	attentionLimit = 50
)

// Dashboard is the console's front page.
type Dashboard struct {
	Counts    []ports.StatusCount
	Attention []ports.AttentionItem
	Proposals []*domain.Proposal
	Now       time.Time
}

// ConsoleDashboardHandler reads the dashboard.
type ConsoleDashboardHandler struct {
	backOffice ports.BackOffice
	proposals  ports.ProposalRepository
	clock      ports.Clock
}

// NewConsoleDashboardHandler returns the handler on the ports it uses.
func NewConsoleDashboardHandler(clock ports.Clock, backOffice ports.BackOffice, proposals ports.ProposalRepository) *ConsoleDashboardHandler {
	return &ConsoleDashboardHandler{backOffice: backOffice, proposals: proposals, clock: clock}
}

// Handle returns counts by status, the work that waited too long, and the open proposals.
func (h *ConsoleDashboardHandler) Handle(ctx context.Context, who Actor) (Dashboard, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return Dashboard{}, err
	}
	now := h.clock.Now(uuid.Nil)
	d := Dashboard{Now: now}
	var err error
	if d.Counts, err = h.backOffice.CountByStatus(ctx); err != nil {
		return d, err
	}
	if d.Attention, err = h.backOffice.NeedsAttention(ctx, ports.AttentionQuery{StageBefore: now.Add(-StuckStageAge),
		UnknownBefore: now.Add(-UnknownOutcomeAge), FailedAttempts: FailingDeliveryAttempts, Limit: attentionLimit}); err != nil {
		return d, err
	}
	open, err := h.proposals.List(ctx, uuid.Nil, attentionLimit)
	for _, p := range asOf(open, now) {
		if p.Status == domain.ProposalOpen {
			d.Proposals = append(d.Proposals, p)
		}
	}
	return d, err
}
