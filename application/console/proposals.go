package console

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The four-eyed proposals' shared steps: storing a proposal with its audit line, and naming and
// describing one in the audit log.

// recordProposal stores p as its object's one open proposal (an expired one makes room), in one
// transaction with its audit line, at the time of the object's partner.
func recordProposal(ctx context.Context, uow ports.UnitOfWork, proposals ports.ProposalRepository, a Audit, who Actor,
	partner uuid.UUID, p *domain.Proposal) error {
	return uow.Do(ctx, func(ctx context.Context) error { return storeProposal(ctx, proposals, a, who, partner, p) })
}

// storeProposal is recordProposal in the transaction of ctx.
func storeProposal(ctx context.Context, proposals ports.ProposalRepository, a Audit, who Actor, partner uuid.UUID, p *domain.Proposal) error {
	if err := expireStale(ctx, proposals, p.ObjectID, p.ProposedAt); err != nil {
		return err
	}
	if err := proposals.Create(ctx, p); err != nil {
		return err
	}
	return a.recordOn(ctx, who, partner, "proposal.create", objectName(p), describe(p))
}

// expireStale records the object's open proposals past domain.ProposalTTL as EXPIRED, so they no
// longer hold its one open slot.
func expireStale(ctx context.Context, proposals ports.ProposalRepository, object uuid.UUID, now time.Time) error {
	ps, err := proposals.List(ctx, object, pageRows)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.StatusAt(now) != domain.ProposalExpired || p.Status != domain.ProposalOpen {
			continue
		}
		if err := proposals.Update(ctx, p.ID, func(x *domain.Proposal) error { x.Expire(now); return nil }); err != nil {
			return err
		}
	}
	return nil
}

// asOf shows proposals as they stand at now: an open one past its 24 hours is EXPIRED.
func asOf(ps []*domain.Proposal, now time.Time) []*domain.Proposal {
	for _, p := range ps {
		p.Status = p.StatusAt(now)
	}
	return ps
}

// objectName is how the audit log names a proposal's object.
func objectName(p *domain.Proposal) string {
	if p.Kind.IsLoanAction() {
		return "loan:" + p.ObjectID.String()
	}
	switch p.Kind {
	case domain.ResolveTransfer:
		return "transfer:" + p.ObjectID.String()
	case domain.BulkRepayments, domain.BulkLoanActions:
		return "bulk:" + p.ObjectID.String()
	}
	if p.Kind.IsBreakWork() {
		return breakObject(p)
	}
	return "application:" + p.ObjectID.String()
}

// describe is a proposal in one line of the audit log.
func describe(p *domain.Proposal) string {
	if p.Kind.IsLoanAction() {
		s := fmt.Sprintf("proposal %s: %s", p.ID, p.Kind)
		if a := p.Action; a.Amount > 0 {
			s += fmt.Sprintf(" of %d tiyin", a.Amount)
		}
		if p.Action.Months > 0 {
			s += fmt.Sprintf(" by %d months", p.Action.Months)
		}
		if a := p.Action; p.Kind == domain.ActionManualRepayment {
			s += fmt.Sprintf(" (%s, %s, reference %s)", a.PaymentType, a.Channel, p.Ref)
		}
		return s + ": " + p.Note
	}
	if p.Kind.IsBreakWork() {
		return describeBreakWork(p)
	}
	if p.Kind.IsBulk() {
		return fmt.Sprintf("proposal %s: %s, %s", p.ID, p.Kind, p.Note)
	}
	outcome := "not done"
	if p.Done {
		outcome = "done"
	}
	s := fmt.Sprintf("proposal %s: %s as %s", p.ID, p.Kind, outcome)
	if p.Ref != "" {
		s += ", reference " + p.Ref
	}
	return s + ": " + p.Note
}

// breakObject is how the audit log names what a break proposal works: its break, or the batch
// of several.
func breakObject(p *domain.Proposal) string {
	if len(p.Breaks) > 0 {
		return "breaks:" + p.ObjectID.String()
	}
	return "break:" + p.ObjectID.String()
}

// describeBreakWork is a break proposal in one line of the audit log: its kind, its breaks and
// the maker's note.
func describeBreakWork(p *domain.Proposal) string {
	what := map[domain.ProposalKind]string{domain.AcceptBreak: "the network's side", domain.ExplainBreak: "explained",
		domain.ReopenBreak: "reopened"}[p.Kind]
	s := fmt.Sprintf("proposal %s: %s, %s", p.ID, p.Kind, what)
	if len(p.Breaks) > 0 {
		ids := make([]string, len(p.Breaks))
		for i, b := range p.Breaks {
			ids[i] = b.String()
		}
		s += fmt.Sprintf(" (%d breaks: %s)", len(p.Breaks), strings.Join(ids, " "))
	}
	return s + ": " + p.Note
}
