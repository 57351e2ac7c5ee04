package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SetLanguageHandler keeps an operator's console language: a preference of their own, so any
// role may set it and it is not audited.
type SetLanguageHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
}

// Handle sets who's language; domain.ErrLanguage for one the console does not speak.
func (h *SetLanguageHandler) Handle(ctx context.Context, who Actor, lang string) error {
	if err := who.may(domain.RoleViewer); err != nil {
		return err
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Operators.Update(ctx, who.ID, func(o *domain.Operator) error { return o.SetLanguage(lang) })
	})
}
