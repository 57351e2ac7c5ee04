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

// PartnersHandler reads the partners' pages.
type PartnersHandler struct {
	partners   ports.PartnerRepository
	backOffice ports.BackOffice
}

// NewPartnersHandler returns the handler on the ports it uses.
func NewPartnersHandler(partners ports.PartnerRepository, backOffice ports.BackOffice) *PartnersHandler {
	return &PartnersHandler{partners: partners, backOffice: backOffice}
}

// List returns every partner.
func (h *PartnersHandler) List(ctx context.Context, who Actor) ([]domain.Partner, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.partners.List(ctx)
}

// Handle reads the page of the partner named name.
func (h *PartnersHandler) Handle(ctx context.Context, who Actor, name string) (PartnerPage, error) {
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
