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
	Partners   ports.PartnerRepository
	BackOffice ports.BackOffice
}

// List returns every partner.
func (h *PartnersHandler) List(ctx context.Context, who Actor) ([]domain.Partner, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return nil, err
	}
	return h.Partners.List(ctx)
}

// Handle reads the page of the partner named name.
func (h *PartnersHandler) Handle(ctx context.Context, who Actor, name string) (PartnerPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return PartnerPage{}, err
	}
	p, err := h.Partners.ByName(ctx, name)
	if err != nil {
		return PartnerPage{}, err
	}
	page := PartnerPage{Partner: p}
	page.Deliveries, err = h.BackOffice.Events(ctx, p.ID, uuid.Nil, pageRows)
	return page, err
}
