package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
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
	// DashboardCountedBreaks bounds the dashboard's count of open reconciliation breaks: past
	// it, the front page says "more than" and the reconciliation page counts them all.
	DashboardCountedBreaks = 1_000
)

// Dashboard is the console's front page.
type Dashboard struct {
	Counts    []ports.StatusCount
	Attention []ports.AttentionItem
	// OpenBreaks counts the reconciliation breaks still OPEN, up to DashboardCountedBreaks
	// (OpenBreaksMore: there are more); OldestBreakDay is the business day of the oldest (zero when none is open).
	OpenBreaks     int
	OpenBreaksMore bool
	OldestBreakDay time.Time
	Proposals      []*domain.Proposal
	// Makers are the names of the proposals' makers, by operator; Breaks the breaks the break
	// proposals cover, by id (their kind, day and amounts).
	Makers map[uuid.UUID]string
	Breaks map[uuid.UUID]ports.BreakRecord
	Now    time.Time
}

// DashboardHandler reads the dashboard.
type DashboardHandler struct {
	BackOffice     ports.BackOffice
	Proposals      ports.ProposalRepository
	Reconciliation ports.ReconciliationRepository
	Operators      ports.OperatorRepository
	Clock          ports.Clock
}

// Handle returns counts by status, the work that waited too long (the open reconciliation
// breaks among it), and the open proposals.
func (h *DashboardHandler) Handle(ctx context.Context, who Actor) (Dashboard, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return Dashboard{}, err
	}
	now := h.Clock.Now(uuid.Nil)
	d := Dashboard{Now: now}
	var err error
	if d.Counts, err = h.BackOffice.CountByStatus(ctx); err != nil {
		return d, err
	}
	if d.Attention, err = h.BackOffice.NeedsAttention(ctx, ports.AttentionQuery{StageBefore: now.Add(-StuckStageAge),
		UnknownBefore: now.Add(-application.UnknownOutcomeAge), FailedAttempts: FailingDeliveryAttempts, Limit: attentionLimit}); err != nil {
		return d, err
	}
	if err = h.openBreaks(ctx, &d); err != nil {
		return d, err
	}
	open, err := h.Proposals.List(ctx, uuid.Nil, attentionLimit)
	if err != nil {
		return d, err
	}
	var breaks []uuid.UUID
	for _, p := range asOf(open, now) {
		if p.Status == domain.ProposalOpen {
			d.Proposals = append(d.Proposals, p)
			if p.Kind.IsBreakWork() {
				breaks = append(breaks, p.Covers()...)
			}
		}
	}
	if len(d.Proposals) == 0 {
		return d, nil
	}
	if d.Makers, err = everyOperatorName(ctx, h.Operators); err != nil || len(breaks) == 0 {
		return d, err
	}
	rows, err := h.Reconciliation.Breaks(ctx, ports.BreakQuery{IDs: breaks, Limit: len(breaks)})
	d.Breaks = make(map[uuid.UUID]ports.BreakRecord, len(rows))
	for _, b := range rows {
		d.Breaks[b.ID] = b
	}
	return d, err
}

// openBreaks counts the open breaks up to DashboardCountedBreaks (a team far behind sees "more
// than", and the count stays a bounded read of the open breaks' index), and finds the day of
// the oldest.
func (h *DashboardHandler) openBreaks(ctx context.Context, d *Dashboard) error {
	n, err := h.Reconciliation.CountBreaks(ctx, ports.BreakQuery{Status: ports.BreakOpen, Limit: DashboardCountedBreaks + 1})
	if err != nil || n == 0 {
		return err
	}
	d.OpenBreaks, d.OpenBreaksMore = min(n, DashboardCountedBreaks), n > DashboardCountedBreaks
	oldest, err := h.Reconciliation.Breaks(ctx, ports.BreakQuery{Status: ports.BreakOpen, Oldest: true, Limit: 1})
	if err != nil || len(oldest) == 0 {
		return err
	}
	d.OldestBreakDay = oldest[0].Day
	return nil
}
