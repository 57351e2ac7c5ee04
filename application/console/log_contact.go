package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LogContact is a line for a loan's contact log: how the borrower was contacted and what came
// of it.
type LogContact struct {
	Loan             uuid.UUID
	Channel, Outcome string
	Note             string
}

// LogContactHandler adds a line to a loan's contact log, at the loan's partner's time, with its
// audit line.
type LogContactHandler struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Loans       ports.LoanRepository
	Collections ports.CollectionsRepository
	Audit       Audit
}

// Handle logs the contact.
func (h *LogContactHandler) Handle(ctx context.Context, who Actor, cmd LogContact) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	loan, err := h.Loans.Get(ctx, cmd.Loan)
	if err != nil {
		return err
	}
	n, err := domain.NewContactNote(application.NewID(), cmd.Loan, cmd.Channel, cmd.Outcome, cmd.Note, who.ID, h.Clock.Now(loan.PartnerID()))
	if err != nil {
		return err
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Collections.AddNote(ctx, n); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "collections.contact", "loan:"+cmd.Loan.String(), n.Channel.String()+" "+n.Outcome.String())
	})
}
