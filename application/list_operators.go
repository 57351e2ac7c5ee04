package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ListOperatorsHandler lists the console's operators (`tiyin operator list`).
type ListOperatorsHandler struct {
	operators ports.OperatorRepository
}

// NewListOperatorsHandler returns the handler on the ports it uses.
func NewListOperatorsHandler(operators ports.OperatorRepository) *ListOperatorsHandler {
	return &ListOperatorsHandler{operators: operators}
}

// Handle returns every operator, by name; admins only.
func (h *ListOperatorsHandler) Handle(ctx context.Context, who Actor) ([]*domain.Operator, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return nil, err
	}
	return h.operators.List(ctx)
}
