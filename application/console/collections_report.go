package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CollectionsReportPage is the collections report: the period's promises and recoveries, how
// overdue loans rolled between buckets from the period's first snapshot to its last, and the
// daily portfolio at risk.
type CollectionsReportPage struct {
	From, To time.Time
	ports.CollectionsReport
	Buckets domain.Buckets
	// Rolls[i][j] counts the loans in bucket i on RollFrom found in bucket j on RollTo; the
	// last column (len(Buckets)) counts those in no bucket any more (paid up, closed or
	// written off).
	Rolls            [][]int
	RollFrom, RollTo time.Time
	PAR              []ports.PARSnapshot
}

// RollRate is Rolls[i][j] as a share of bucket i's loans, in percent.
func (p CollectionsReportPage) RollRate(i, j int) float64 {
	n := 0
	for _, v := range p.Rolls[i] {
		n += v
	}
	if n == 0 {
		return 0
	}
	return float64(p.Rolls[i][j]) * 100 / float64(n)
}

// CollectionsReportHandler reads the collections report.
type CollectionsReportHandler struct {
	clock       ports.Clock
	collections ports.CollectionsRepository
	buckets     domain.Buckets
}

// NewCollectionsReportHandler returns the handler on the ports it uses.
func NewCollectionsReportHandler(clock ports.Clock, collections ports.CollectionsRepository, cfg application.Config) *CollectionsReportHandler {
	return &CollectionsReportHandler{clock: clock, collections: collections, buckets: cfg.Collections.WithDefaults().Buckets}
}

// parDays is how many days of portfolio at risk the report charts.
const parDays = 90

// Handle reads the report of the 30 days up to today (the latest partner's).
func (h *CollectionsReportHandler) Handle(ctx context.Context, who Actor) (CollectionsReportPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return CollectionsReportPage{}, err
	}
	now := application.LatestNow(h.clock)
	p := CollectionsReportPage{From: now.Add(-collectionsWindow), To: now, Buckets: h.buckets}
	var err error
	if p.CollectionsReport, err = h.collections.Report(ctx, p.From, p.To); err != nil {
		return p, err
	}
	today := domain.BusinessDate(now)
	if p.PAR, err = h.collections.PARHistory(ctx, today.AddDate(0, 0, -parDays), today); err != nil {
		return p, err
	}
	p.Rolls = make([][]int, len(h.buckets))
	for i := range p.Rolls {
		p.Rolls[i] = make([]int, len(h.buckets)+1)
	}
	start := domain.BusinessDate(p.From)
	for _, s := range p.PAR {
		if p.RollFrom.IsZero() && !s.Day.Before(start) {
			p.RollFrom = s.Day
		}
		p.RollTo = s.Day
	}
	if p.RollFrom.IsZero() || !p.RollTo.After(p.RollFrom) {
		return p, nil
	}
	before, err := h.collections.BucketsOn(ctx, p.RollFrom)
	if err != nil {
		return p, err
	}
	after, err := h.collections.BucketsOn(ctx, p.RollTo)
	if err != nil {
		return p, err
	}
	later := make(map[uuid.UUID]int, len(after))
	for _, b := range after {
		later[b.LoanID] = b.Bucket
	}
	for _, b := range before {
		if b.Bucket < 0 || b.Bucket >= len(h.buckets) {
			continue
		}
		j, ok := later[b.LoanID]
		if !ok || j < 0 || j >= len(h.buckets) {
			j = len(h.buckets)
		}
		p.Rolls[b.Bucket][j]++
	}
	return p, nil
}

// collectionsWindow is how far back the report looks by default.
const collectionsWindow = 30 * 24 * time.Hour
