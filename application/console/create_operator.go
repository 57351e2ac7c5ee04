package console

import (
	"context"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CreateOperator adds a member of the bank's staff to the console (`tiyin operator create`).
type CreateOperator struct {
	Name string
	Role domain.Role
}

// CreateOperatorHandler creates operators.
type CreateOperatorHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewCreateOperatorHandler returns the handler on the ports it uses.
func NewCreateOperatorHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *CreateOperatorHandler {
	return &CreateOperatorHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle creates the operator and returns their one-time password, to be changed at the first
// login; it is shown once and stored only as its hash. An operator an admin creates in the
// console logs in only once a second admin approves (DecideOperatorGrant); one the command
// line creates, at once.
func (h *CreateOperatorHandler) Handle(ctx context.Context, who Actor, cmd CreateOperator) (string, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return "", err
	}
	password, hash, err := oneTimePassword()
	if err != nil {
		return "", err
	}
	o, err := domain.NewOperator(application.NewID(), cmd.Name, cmd.Role, hash, h.audit.now())
	if err != nil {
		return "", err
	}
	o.GivePassword(hash, who.Name, h.audit.now())
	detail := "role " + string(o.Role())
	if !who.local() {
		o.AwaitApproval(who.Name, h.audit.now())
		detail += ", awaiting a second admin"
	}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.operators.Create(ctx, o); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "operator.create", "operator:"+o.Name(), detail)
	})
	if err != nil {
		return "", err
	}
	return password, nil
}
