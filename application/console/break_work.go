package console

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BreakWork is an officer's work on one or several reconciliation breaks at once (accept their
// side, explain, reopen), with the note that says why.
type BreakWork struct {
	Breaks []uuid.UUID
	Note   string
}

// breaksInStatus reads the breaks of a piece of work: each must be in status (OPEN to accept or
// explain, EXPLAINED to reopen) and covered by no open proposal (a second officer decides on
// one proposal a break, single or several at once).
func breaksInStatus(ctx context.Context, reconciliation ports.ReconciliationRepository, proposals ports.ProposalRepository,
	ids []uuid.UUID, status string, now time.Time) ([]ports.BreakRecord, error) {
	return breaksToWork(ctx, reconciliation, proposals, ids, status, now, "")
}

// breaksToWork is breaksInStatus, where an open proposal of kind yields (an explanation
// supersedes an acceptance waiting for approval).
func breaksToWork(ctx context.Context, reconciliation ports.ReconciliationRepository, proposals ports.ProposalRepository,
	ids []uuid.UUID, status string, now time.Time, yields domain.ProposalKind) ([]ports.BreakRecord, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: select at least one break", domain.ErrProposalIncomplete)
	}
	if len(ids) > domain.MaxBreaksAtOnce {
		return nil, fmt.Errorf("%w: at most %d breaks at once", domain.ErrProposalIncomplete, domain.MaxBreaksAtOnce)
	}
	out := make([]ports.BreakRecord, 0, len(ids))
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		b, err := reconciliation.Break(ctx, id)
		if err != nil {
			return nil, err
		}
		if b.Status != status {
			return nil, fmt.Errorf("%w: the break %s is %s already", domain.ErrWrongState, b.LineID, b.Status)
		}
		ps, err := proposals.List(ctx, id, attentionLimit)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.Kind.IsBreakWork() && p.Kind != yields && p.StatusAt(now) == domain.ProposalOpen {
				return nil, fmt.Errorf("%w: the break %s waits for a second officer on a proposal already", domain.ErrProposalOpen, b.LineID)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// proposeBreakWork records a proposal of kind covering breaks, for a second officer's
// approval, and returns its id. Its audit line is dated on the clock of the breaks' partner
// when they have one (objects: ReconciliationRepository.Trace's), else on the server's.
func proposeBreakWork(ctx context.Context, uow ports.UnitOfWork, proposals ports.ProposalRepository, a Audit, who Actor,
	kind domain.ProposalKind, breaks []ports.BreakRecord, objects map[uuid.UUID]ports.LineObject, note string) (uuid.UUID, error) {
	p, err := breakProposal(a, who, kind, breaks, note)
	if err != nil {
		return uuid.Nil, err
	}
	return p.ID, recordProposal(ctx, uow, proposals, a, who, partnerOf(breaks, objects), p)
}

// partnerOf is the one partner the breaks' lines are of; uuid.Nil (the server's clock) when
// they are of several or of none.
func partnerOf(breaks []ports.BreakRecord, objects map[uuid.UUID]ports.LineObject) uuid.UUID {
	var partner uuid.UUID
	for i, b := range breaks {
		p := objects[b.ID].PartnerID
		if i > 0 && p != partner {
			return uuid.Nil
		}
		partner = p
	}
	return partner
}

// breakProposal is a new proposal of kind covering breaks.
func breakProposal(a Audit, who Actor, kind domain.ProposalKind, breaks []ports.BreakRecord, note string) (*domain.Proposal, error) {
	p, err := domain.NewProposal(application.NewID(), kind, uuid.Nil, true, "", note, who.ID, a.now())
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(breaks))
	for i, b := range breaks {
		ids[i] = b.ID
	}
	return p, p.CoverBreaks(application.NewID(), ids)
}

// openBreak is the break id, refused (domain.ErrWrongState) unless it is still OPEN.
func openBreak(ctx context.Context, reconciliation ports.ReconciliationRepository, id uuid.UUID) (ports.BreakRecord, error) {
	b, err := reconciliation.Break(ctx, id)
	if err == nil && b.Status != ports.BreakOpen {
		err = fmt.Errorf("%w: the break is %s already", domain.ErrWrongState, b.Status)
	}
	return b, err
}

// transferOfBreak is the transfer a credit line's break names, when its id is of tiyin's
// making (a transfer tiyin never ordered may still have no such id).
func transferOfBreak(b ports.BreakRecord) (uuid.UUID, bool) {
	if (b.Ours == nil || b.Ours.Kind != domain.LineCredit) && (b.Theirs == nil || b.Theirs.Kind != domain.LineCredit) {
		return uuid.Nil, false
	}
	return domain.TransferOfLine(b.LineID)
}
