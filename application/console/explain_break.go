package console

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ExplainBreakHandler explains reconciliation breaks with an officer's note (what the network or
// the bank said). A break whose two sides agree on money (domain.Break.MoneyAgrees) is closed
// at once, in one transaction with its audit line and the closing of any proposal still
// waiting that covers it; explaining any other says the books are right as they stand, and is a
// proposal a second officer approves (issue 47, 4), as accepting is.
type ExplainBreakHandler struct {
	UoW            ports.UnitOfWork
	Reconciliation ports.ReconciliationRepository
	Proposals      ports.ProposalRepository
	Audit          Audit
}

// Handle explains the breaks of w, one or several at once; a note is required. When every one
// agrees on money they are explained now, and it returns uuid.Nil; otherwise it records one
// proposal covering them all (refused when one is covered by another open proposal) and
// returns its id.
func (h *ExplainBreakHandler) Handle(ctx context.Context, who Actor, w BreakWork) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	note, err := domain.ParseNote(w.Note)
	if err != nil {
		return uuid.Nil, err
	}
	breaks, err := h.open(ctx, w.Breaks)
	if err != nil {
		return uuid.Nil, err
	}
	for _, b := range breaks {
		if !b.MoneyAgrees() {
			return h.propose(ctx, who, w.Breaks, note)
		}
	}
	return uuid.Nil, h.UoW.Do(ctx, func(ctx context.Context) error {
		for _, b := range breaks {
			if err := h.explain(ctx, who, b.ID, note); err != nil {
				return err
			}
		}
		return nil
	})
}

// propose records an explanation of the breaks ids names for a second officer's approval. An
// acceptance of one of them still waiting is closed in the same transaction (rejected, audited
// proposal.supersede), as an explanation at once closes it: the explanation replaces it, and
// no approver is left with a proposal whose approval could only be refused. Any other open
// proposal covering one of them refuses it.
func (h *ExplainBreakHandler) propose(ctx context.Context, who Actor, ids []uuid.UUID, note string) (uuid.UUID, error) {
	breaks, err := breaksToWork(ctx, h.Reconciliation, h.Proposals, ids, ports.BreakOpen, h.Audit.now(), domain.AcceptBreak)
	if err != nil {
		return uuid.Nil, err
	}
	p, err := breakProposal(h.Audit, who, domain.ExplainBreak, breaks, note)
	if err != nil {
		return uuid.Nil, err
	}
	return p.ID, h.UoW.Do(ctx, func(ctx context.Context) error {
		for _, b := range breaks {
			superseded, err := h.supersede(ctx, who, b.ID)
			if err != nil {
				return err
			}
			for _, s := range superseded {
				if err := h.Audit.record(ctx, who, "proposal.supersede", objectName(s), describe(s)+"; an explanation of the break is proposed"); err != nil {
					return err
				}
			}
		}
		return storeProposal(ctx, h.Proposals, h.Audit, who, uuid.Nil, p)
	})
}

// open reads the breaks ids names, each still OPEN.
func (h *ExplainBreakHandler) open(ctx context.Context, ids []uuid.UUID) ([]ports.BreakRecord, error) {
	if len(ids) == 0 || len(ids) > domain.MaxBreaksAtOnce {
		return nil, fmt.Errorf("%w: select from 1 to %d breaks", domain.ErrProposalIncomplete, domain.MaxBreaksAtOnce)
	}
	out := make([]ports.BreakRecord, 0, len(ids))
	for _, id := range ids {
		b, err := openBreak(ctx, h.Reconciliation, id)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// explain closes break id EXPLAINED with note, in the transaction of ctx. A proposal still
// waiting that covers the break is closed with it (rejected, audited proposal.supersede): once
// the break is explained, its approval could only be refused.
func (h *ExplainBreakHandler) explain(ctx context.Context, who Actor, id uuid.UUID, note string) error {
	// The proposals are locked before the break, in the order an approval locks them.
	superseded, err := h.supersede(ctx, who, id)
	if err != nil {
		return err
	}
	if err := h.Reconciliation.Close(ctx, id, ports.BreakExplained, note, who.Name, h.Audit.now()); err != nil {
		return err
	}
	if err := h.Audit.record(ctx, who, "break.explain", "break:"+id.String(), note); err != nil {
		return err
	}
	for _, p := range superseded {
		if err := h.Audit.record(ctx, who, "proposal.supersede", objectName(p), describe(p)+"; the break was explained"); err != nil {
			return err
		}
	}
	return nil
}

// supersede closes the proposals still open that cover break id, in the transaction of ctx,
// and returns them. Each is checked again under its lock: one approved meanwhile is left as it
// is (and the break, worked by it, refuses the explanation).
func (h *ExplainBreakHandler) supersede(ctx context.Context, who Actor, id uuid.UUID) ([]*domain.Proposal, error) {
	ps, err := h.Proposals.List(ctx, id, attentionLimit)
	if err != nil {
		return nil, err
	}
	now := h.Audit.now()
	var out []*domain.Proposal
	for _, p := range ps {
		if !p.Kind.IsBreakWork() || p.StatusAt(now) != domain.ProposalOpen {
			continue
		}
		err := h.Proposals.Update(ctx, p.ID, func(x *domain.Proposal) error {
			if x.StatusAt(now) == domain.ProposalOpen {
				x.Withdraw(who.ID, now)
				out = append(out, x)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
