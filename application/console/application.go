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
	Application *domain.Application
	PartnerName string
	Loan        *domain.Loan
	Steps       []domain.StepRecord
	Events      []ports.EventRecord
	Proposals   []*domain.Proposal
	Audit       []ports.AuditEntry
}

// ApplicationHandler reads an application's page.
type ApplicationHandler struct {
	applications ports.ApplicationRepository
	loans        ports.LoanRepository
	partners     ports.PartnerRepository
	backOffice   ports.BackOffice
	proposals    ports.ProposalRepository
	log          ports.AuditLog
	clock        ports.Clock
}

// NewApplicationHandler returns the handler on the ports it uses.
func NewApplicationHandler(clock ports.Clock, applications ports.ApplicationRepository, loans ports.LoanRepository, partners ports.PartnerRepository,
	backOffice ports.BackOffice, proposals ports.ProposalRepository, log ports.AuditLog) *ApplicationHandler {
	return &ApplicationHandler{clock: clock, applications: applications, loans: loans, partners: partners, backOffice: backOffice,
		proposals: proposals, log: log}
}

// Handle reads the page of application id, of any partner.
func (h *ApplicationHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (ApplicationPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ApplicationPage{}, err
	}
	a, err := h.applications.Get(ctx, id)
	if err != nil {
		return ApplicationPage{}, err
	}
	p := ApplicationPage{Application: a}
	if p.PartnerName, err = partnerName(ctx, h.partners, a.PartnerID()); err != nil {
		return p, err
	}
	if a.Status() == domain.StatusCompleted {
		if p.Loan, err = h.loans.GetByApplication(ctx, id); err != nil && !errors.Is(err, domain.ErrLoanNotFound) {
			return p, err
		}
	}
	if p.Steps, err = h.backOffice.Steps(ctx, id, pageRows); err != nil {
		return p, err
	}
	if p.Events, err = h.backOffice.Events(ctx, uuid.Nil, id, pageRows); err != nil {
		return p, err
	}
	if p.Proposals, err = h.proposals.List(ctx, id, pageRows); err != nil {
		return p, err
	}
	p.Proposals = asOf(p.Proposals, h.clock.Now(uuid.Nil))
	p.Audit, err = h.log.List(ctx, ports.AuditFilter{Object: "application:" + id.String(), Limit: pageRows})
	return p, err
}
