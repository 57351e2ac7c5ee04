package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// DecideProposal is a second officer's approval or rejection of a proposal.
type DecideProposal struct {
	ID      uuid.UUID
	Approve bool
}

// DecideProposalHandler approves and rejects proposals. An approval applies the resolution in
// the transaction that records it: the proposal, the object's new state, its ledger posting
// and the audit line commit together or not at all.
type DecideProposalHandler struct {
	uow          ports.UnitOfWork
	clock        ports.Clock
	applications ports.ApplicationRepository
	loans        ports.LoanRepository
	ledger       ports.LedgerRepository
	transfers    ports.TransferRepository
	repayments   ports.RepaymentRepository
	proposals    ports.ProposalRepository
	// operators are the maker and the approver, whose credentials an approval is checked against.
	operators ports.OperatorRepository
	// reconciliation is the breaks an AcceptBreak proposal adjusts.
	reconciliation ports.ReconciliationRepository
	// bulk is the lines a BulkRepayments proposal posts.
	bulk       ports.BulkRepository
	settlement application.TransferSettlement
	product    application.Product
	audit      Audit
}

// NewDecideProposalHandler returns the handler on the ports it uses.
func NewDecideProposalHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository,
	loans ports.LoanRepository, ledger ports.LedgerRepository, transfers ports.TransferRepository,
	repayments ports.RepaymentRepository, proposals ports.ProposalRepository, operators ports.OperatorRepository,
	reconciliation ports.ReconciliationRepository, bulk ports.BulkRepository, log ports.AuditLog, cfg application.Config) *DecideProposalHandler {
	return &DecideProposalHandler{uow: uow, clock: clock, applications: applications, loans: loans, ledger: ledger, transfers: transfers, repayments: repayments,
		proposals: proposals, operators: operators, reconciliation: reconciliation, bulk: bulk, settlement: application.TransferSettlement{UoW: uow, Transfers: transfers, Ledger: ledger, Clock: clock},
		product: cfg.Product, audit: Audit{Clock: clock, Log: log}}
}

// Handle records the decision and, for an approval, resolves the object. The maker may not
// decide their own proposal, and may not have set or reset the approver's password or second
// factor within a day (domain.ErrApproverCredentials, audited as proposal.refused); a proposal
// older than domain.ProposalTTL is expired. An object whose outcome became known meanwhile
// refuses the approval (domain.ErrOutcomeKnown): the proposal stays open, for a rejection.
func (h *DecideProposalHandler) Handle(ctx context.Context, who Actor, cmd DecideProposal) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	var approver, maker *domain.Operator
	var asked *domain.Proposal
	if cmd.Approve {
		var err error
		if asked, err = h.proposals.Get(ctx, cmd.ID); err != nil {
			return err
		}
		if approver, err = h.operators.Get(ctx, who.ID); err != nil {
			return err
		}
		if maker, err = h.operators.Get(ctx, asked.ProposedBy); err != nil {
			return err
		}
	}
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		var p *domain.Proposal
		err := h.proposals.Update(ctx, cmd.ID, func(x *domain.Proposal) error {
			p = x
			now := h.audit.now()
			if err := x.Decide(cmd.Approve, who.ID, now); err != nil || !cmd.Approve {
				return err
			}
			return approver.MayApprove(maker.Name(), now)
		})
		if err != nil {
			return err
		}
		action, detail, partner := "proposal.reject", describe(p), uuid.Nil
		if cmd.Approve {
			action = "proposal.approve"
			applied, of, err := h.resolve(ctx, p, who)
			if err != nil {
				return err
			}
			detail, partner = detail+applied, of
		}
		if partner == uuid.Nil { // not read by the approval: a rejection, a break's or a batch's
			if partner, err = h.partnerOf(ctx, p); err != nil {
				return err
			}
		}
		return h.audit.recordOn(ctx, who, partner, action, objectName(p), detail)
	})
	if errors.Is(err, domain.ErrApproverCredentials) {
		return h.audit.refused(ctx, h.uow, who, "proposal.refused", objectName(asked), describe(asked), err)
	}
	return err
}

// resolve applies an approved proposal, in the transaction of ctx; for a loan action it says
// what it applied, for the audit line. It also returns the partner of the loan, transfer or
// application it changed, read as it applied it (uuid.Nil for breaks and batches).
func (h *DecideProposalHandler) resolve(ctx context.Context, p *domain.Proposal, who Actor) (string, uuid.UUID, error) {
	if p.Kind.IsLoanAction() {
		return h.applyLoanAction(ctx, p)
	}
	if p.Kind.IsBreakWork() {
		out, err := h.workBreaks(ctx, p, who)
		return out, uuid.Nil, err
	}
	if p.Kind.IsBulk() {
		out, err := h.postBulk(ctx, p)
		return out, uuid.Nil, err
	}
	var partner uuid.UUID
	if p.Kind == domain.ResolveTransfer {
		err := h.settlement.SettleIn(ctx, p.ObjectID, func(t *domain.Transfer) (bool, error) {
			partner = t.PartnerID()
			if t.Status() != domain.TransferProcessing {
				return false, domain.ErrOutcomeKnown
			}
			reason := "not credited, as the bank's operators found"
			if p.Done {
				reason = ""
			}
			return true, t.Settle(p.Done, reason, h.clock.Now(t.PartnerID()))
		})
		return "", partner, err
	}
	var loan *domain.Loan
	err := h.applications.Update(ctx, p.ObjectID, func(a *domain.Application) error {
		var err error
		partner = a.PartnerID()
		loan, err = a.ResolveUnknown(p.Done, p.Ref, h.product.LoanProduct(), h.clock.Now(a.PartnerID()))
		return err
	})
	if err != nil || loan == nil {
		return "", partner, err
	}
	return "", partner, application.IssueLoan(ctx, h.loans, h.ledger, loan)
}

// applyLoanAction applies an approved loan action as it stands now: the loan's change (and
// its event), its postings and a manual repayment's request, in the transaction of ctx. It
// returns what it applied, for the audit line, and the loan's partner.
func (h *DecideProposalHandler) applyLoanAction(ctx context.Context, p *domain.Proposal) (string, uuid.UUID, error) {
	var out domain.ActionOutcome
	var partner uuid.UUID
	var opened bool // the action opened the loan's books: a write-off before its first close
	err := h.loans.Update(ctx, p.ObjectID, func(loan *domain.Loan) error {
		var err error
		partner = loan.PartnerID()
		_, had := loan.Books()
		out, err = p.ApplyTo(loan, application.NewID(), application.NewID(), h.clock.Now(loan.PartnerID()))
		_, has := loan.Books()
		opened = !had && has
		return err
	})
	if err != nil {
		return "", partner, err
	}
	if opened { // as the close opens them (ports.BooksRepository.SaveClosed)
		for _, k := range domain.BooksAccountKinds {
			if err := h.ledger.OpenAccount(ctx, domain.LoanAccount(k, p.ObjectID)); err != nil {
				return "", partner, err
			}
		}
	}
	for _, posting := range out.Postings {
		if err := h.ledger.Post(ctx, posting); err != nil {
			return "", partner, err
		}
	}
	if out.Repayment != nil {
		if err := h.repayments.Create(ctx, out.Repayment); err != nil {
			return "", partner, err
		}
	}
	return fmt.Sprintf("; applied %d tiyin", out.Amount), partner, nil
}

// workBreaks applies an approved break proposal to every break it covers, in the transaction of
// ctx: all of them or none (a break worked meanwhile refuses the approval, and the proposal
// stays open, for a rejection). It says what it did, for the audit line; an explanation and a
// reopening are audited on each break too.
func (h *DecideProposalHandler) workBreaks(ctx context.Context, p *domain.Proposal, who Actor) (string, error) {
	var out strings.Builder
	for _, id := range p.Covers() {
		var err error
		switch p.Kind {
		case domain.AcceptBreak:
			var posted string
			posted, err = h.acceptBreak(ctx, p, id, who)
			out.WriteString(posted)
		case domain.ExplainBreak:
			if err = h.reconciliation.Close(ctx, id, ports.BreakExplained, p.Note, who.Name, h.audit.now()); err == nil {
				err = h.audit.record(ctx, who, "break.explain", "break:"+id.String(), p.Note+" (proposal "+p.ID.String()+")")
			}
		case domain.ReopenBreak:
			if err = h.reconciliation.Reopen(ctx, id, "reopened: "+p.Note, who.Name, h.audit.now()); err == nil {
				err = h.audit.record(ctx, who, "break.reopen", "break:"+id.String(), p.Note+" (proposal "+p.ID.String()+")")
			}
		}
		if err != nil {
			if len(p.Breaks) > 0 {
				err = fmt.Errorf("break %s: %w", id, err)
			}
			return "", err
		}
	}
	return out.String(), nil
}

// acceptBreak books the network's side of open break id as it stands now: the adjusting
// posting, a transfer reversed (and its partner's event), the break RESOLVED with the maker's
// note, in the transaction of ctx; it says what it posted, for the audit line.
func (h *DecideProposalHandler) acceptBreak(ctx context.Context, p *domain.Proposal, id uuid.UUID, who Actor) (string, error) {
	b, err := openBreak(ctx, h.reconciliation, id)
	if err != nil {
		return "", err
	}
	var got domain.Posting
	book := func(t *domain.Transfer, at time.Time) error {
		var err error
		got, err = domain.AcceptNetworkSide(application.NewID(), b.ID, b.Break, t, at)
		return err
	}
	tid, named := transferOfBreak(b)
	if named {
		err = h.transfers.Update(ctx, tid, func(t *domain.Transfer) error { return book(t, h.clock.Now(t.PartnerID())) })
	}
	if !named || errors.Is(err, domain.ErrTransferNotFound) {
		// A debit's (or a credit's tiyin does not keep) adjustment is posted on the clock of
		// the partner whose repayment request the line is of; none: the system's.
		at := h.clock.Now(uuid.Nil)
		objects, traceErr := h.reconciliation.Trace(ctx, []ports.BreakRecord{b})
		if traceErr != nil {
			return "", traceErr
		}
		if o, ok := objects[b.ID]; ok {
			at = h.clock.Now(o.PartnerID)
		}
		err = book(nil, at)
	}
	if err != nil {
		return "", err
	}
	if err := h.ledger.Post(ctx, got); err != nil {
		return "", err
	}
	if err := h.reconciliation.Close(ctx, b.ID, ports.BreakResolved, "the network's side accepted: "+p.Note, who.Name, h.audit.now()); err != nil {
		return "", err
	}
	return fmt.Sprintf("; posted %s of %d tiyin from %s to %s", got.Kind, got.Entries[0].Debit, got.Entries[0].Account.Key(),
		got.Entries[1].Account.Key()), nil
}

// partnerOf is the partner whose object p is about (uuid.Nil: an object tiyin does not keep),
// whose clock the decision's audit line is stamped with.
func (h *DecideProposalHandler) partnerOf(ctx context.Context, p *domain.Proposal) (uuid.UUID, error) {
	switch {
	case p.Kind.IsLoanAction():
		l, err := h.loans.Get(ctx, p.ObjectID)
		if err != nil {
			return uuid.Nil, err
		}
		return l.PartnerID(), nil
	case p.Kind == domain.ResolveTransfer:
		t, err := h.transfers.Get(ctx, p.ObjectID)
		if err != nil {
			return uuid.Nil, err
		}
		return t.PartnerID(), nil
	case p.Kind.IsBulk():
		return uuid.Nil, nil // a batch of many loans: the server's clock
	case p.Kind.IsBreakWork():
		// A proposal of several breaks has a batch as its object: the server's clock.
		b, err := h.reconciliation.Break(ctx, p.ObjectID)
		if errors.Is(err, ports.ErrBreakNotFound) {
			return uuid.Nil, nil
		}
		if err != nil {
			return uuid.Nil, err
		}
		objects, err := h.reconciliation.Trace(ctx, []ports.BreakRecord{b})
		return objects[b.ID].PartnerID, err
	}
	a, err := h.applications.Get(ctx, p.ObjectID)
	if err != nil {
		return uuid.Nil, err
	}
	return a.PartnerID(), nil
}

// postBulk applies each line of an approved batch the preview found OK, as the loan action it
// is (a file's manual repayment; a filter's waiver or write-off), through applyLoanAction, in
// the transaction of ctx: a line the loan or the receipts refuse now refuses the whole
// approval, naming the line (the proposal stays open for a rejection and a new batch).
func (h *DecideProposalHandler) postBulk(ctx context.Context, p *domain.Proposal) (string, error) {
	lines, err := h.bulk.Lines(ctx, p.ObjectID)
	if err != nil {
		return "", err
	}
	posted, sum := 0, int64(0)
	for _, l := range lines {
		if !l.OK() {
			continue
		}
		lp, err := l.Proposal(p.Note, p.ProposedBy, p.ProposedAt)
		if err == nil {
			err = receiptUnused(ctx, h.repayments, lp)
		}
		if err == nil {
			_, _, err = h.applyLoanAction(ctx, lp)
		}
		if err != nil {
			return "", fmt.Errorf("line %d (contract %s): %w", l.Line, l.Contract, err)
		}
		posted++
		sum += l.Amount
	}
	if p.Kind == domain.BulkLoanActions {
		return fmt.Sprintf("; applied to %d loans", posted), nil
	}
	return fmt.Sprintf("; posted %d repayments of %d tiyin in all", posted, sum), nil
}
