package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Helpers the console's pages share: how many rows a list shows, and the names of partners and
// operators they print.

// attentionLimit bounds each kind of trouble the dashboard lists, and the proposals read of one
// break.
const attentionLimit = 50

// pageRows bounds the rows of one list on an object's page.
const pageRows = 100

// partnerName names the partner of id (partners are few: the list is one small read).
func partnerName(ctx context.Context, partners ports.PartnerRepository, id uuid.UUID) (string, error) {
	all, err := partners.List(ctx)
	if err != nil {
		return "", err
	}
	for _, p := range all {
		if p.ID == id {
			return p.Name, nil
		}
	}
	return id.String(), nil
}

// everyOperatorName is every operator's name, by id: who made a proposal.
func everyOperatorName(ctx context.Context, operators ports.OperatorRepository) (map[uuid.UUID]string, error) {
	os, err := operators.List(ctx)
	return operatorNames(os), err
}

// operatorNames names operators by id, for pages that show who did what.
func operatorNames(os []*domain.Operator) map[uuid.UUID]string {
	out := make(map[uuid.UUID]string, len(os))
	for _, o := range os {
		out[o.ID()] = o.Name()
	}
	return out
}
