package console

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ApplicationPage is an application as operators see it: its stages and every gateway attempt,
// the events it recorded,
// the proposals and console actions about it, and its loan.
type ApplicationPage struct {
	Application  *domain.Application
	PartnerName  string
	Loan         *domain.Loan
	StageRecords []domain.StageRecord
	Events       []ports.EventRecord
	Proposals    []*domain.Proposal
	Audit        []ports.AuditEntry
}

// ApplicationHandler reads an application's page.
type ApplicationHandler struct {
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	BackOffice   ports.BackOffice
	Proposals    ports.ProposalRepository
	Log          ports.AuditLog
	Clock        ports.Clock
}

// Handle reads the page of application id, of any partner.
func (h *ApplicationHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (ApplicationPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ApplicationPage{}, err
	}
	a, err := h.Applications.Get(ctx, id)
	if err != nil {
		return ApplicationPage{}, err
	}
	p := ApplicationPage{Application: a}
	if p.PartnerName, err = partnerName(ctx, h.Partners, a.PartnerID()); err != nil {
		return p, err
	}
	if a.Status() == domain.StatusCompleted {
		if p.Loan, err = h.Loans.GetByApplication(ctx, id); err != nil && !errors.Is(err, domain.ErrLoanNotFound) {
			return p, err
		}
	}
	if p.StageRecords, err = h.BackOffice.StageRecords(ctx, id, pageRows); err != nil {
		return p, err
	}
	if p.Events, err = h.BackOffice.Events(ctx, uuid.Nil, id, pageRows); err != nil {
		return p, err
	}
	if p.Proposals, err = h.Proposals.List(ctx, id, pageRows); err != nil {
		return p, err
	}
	p.Proposals = asOf(p.Proposals, h.Clock.Now(uuid.Nil))
	p.Audit, err = h.Log.List(ctx, ports.AuditFilter{Object: "application:" + id.String(), Limit: pageRows})
	return p, err
}
