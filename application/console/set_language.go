package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SetLanguageHandler keeps an operator's console language: a preference of their own, so any
// role may set it and it is not audited.
type SetLanguageHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
}

// NewSetLanguageHandler returns the handler on the ports it uses.
func NewSetLanguageHandler(uow ports.UnitOfWork, operators ports.OperatorRepository) *SetLanguageHandler {
	return &SetLanguageHandler{uow: uow, operators: operators}
}

// Handle sets who's language; domain.ErrLanguage for one the console does not speak.
func (h *SetLanguageHandler) Handle(ctx context.Context, who Actor, lang string) error {
	if err := who.may(domain.RoleViewer); err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		return h.operators.Update(ctx, who.ID, func(o *domain.Operator) error { return o.SetLanguage(lang) })
	})
}
