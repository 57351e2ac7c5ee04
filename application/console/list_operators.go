package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// OperatorList is every operator, by name, and when each with a second factor enrolled it.
type OperatorList struct {
	Operators []*domain.Operator
	Enrolled  map[uuid.UUID]time.Time
}

// ListOperatorsHandler lists the console's operators (`tiyin operator list`).
type ListOperatorsHandler struct {
	Operators ports.OperatorRepository
	Factors   ports.SecondFactorRepository
}

// Handle returns every operator, by name, and their second factors; admins only.
func (h *ListOperatorsHandler) Handle(ctx context.Context, who Actor) (OperatorList, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return OperatorList{}, err
	}
	ops, err := h.Operators.List(ctx)
	if err != nil {
		return OperatorList{}, err
	}
	enrolled, err := h.Factors.Enrolled(ctx)
	return OperatorList{Operators: ops, Enrolled: enrolled}, err
}
