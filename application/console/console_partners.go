package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// PartnerPage is a partner with its webhook's recent deliveries and their answers.
type PartnerPage struct {
	Partner    domain.Partner
	Deliveries []ports.EventRecord
}

// ConsolePartnersHandler reads the partners' pages.
type ConsolePartnersHandler struct {
	partners   ports.PartnerRepository
	backOffice ports.BackOffice
}

// NewConsolePartnersHandler returns the handler on the ports it uses.
func NewConsolePartnersHandler(partners ports.PartnerRepository, backOffice ports.BackOffice) *ConsolePartnersHandler {
	return &ConsolePartnersHandler{partners: partners, backOffice: backOffice}
}

// List returns every partner.
func (h *ConsolePartnersHandler) List(ctx context.Context, who Actor) ([]domain.Partner, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.partners.List(ctx)
}

// Handle reads the page of the partner named name.
func (h *ConsolePartnersHandler) Handle(ctx context.Context, who Actor, name string) (PartnerPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return PartnerPage{}, err
	}
	p, err := h.partners.ByName(ctx, name)
	if err != nil {
		return PartnerPage{}, err
	}
	page := PartnerPage{Partner: p}
	page.Deliveries, err = h.backOffice.Events(ctx, p.ID, uuid.Nil, pageRows)
	return page, err
}
