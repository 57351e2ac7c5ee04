package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ConsolePartnerAction is an admin's change to a partner: disable, enable, or rotate its key.
type ConsolePartnerAction struct {
	Name   string
	Action string // "disable", "enable", "rotate_key"
}

// ConsolePartnerHandler changes partners from the console, each change in the audit log.
type ConsolePartnerHandler struct {
	uow     ports.UnitOfWork
	enabled *SetPartnerEnabledHandler
	rotate  *RotatePartnerKeyHandler
	audit   audit
}

// NewConsolePartnerHandler returns the handler on the ports it uses.
func NewConsolePartnerHandler(clock ports.Clock, uow ports.UnitOfWork, partners ports.PartnerRepository, log ports.AuditLog) *ConsolePartnerHandler {
	return &ConsolePartnerHandler{uow: uow, enabled: NewSetPartnerEnabledHandler(uow, partners), rotate: NewRotatePartnerKeyHandler(uow, partners),
		audit: audit{clock: clock, log: log}}
}

// Handle applies the action; rotate_key returns the new key, shown once.
func (h *ConsolePartnerHandler) Handle(ctx context.Context, who Actor, cmd ConsolePartnerAction) (string, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return "", err
	}
	var key string
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		var err error
		switch cmd.Action {
		case "disable", "enable":
			err = h.enabled.Handle(ctx, SetPartnerEnabled{Name: cmd.Name, Enabled: cmd.Action == "enable"})
		case "rotate_key":
			key, err = h.rotate.Handle(ctx, RotatePartnerKey{Name: cmd.Name})
		default:
			return domain.ErrForbidden
		}
		if err != nil {
			return err
		}
		return h.audit.record(ctx, who, "partner."+cmd.Action, "partner:"+cmd.Name, "")
	})
	return key, err
}
