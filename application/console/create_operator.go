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
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
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
	o, err := domain.NewOperator(application.NewID(), cmd.Name, cmd.Role, hash, h.Audit.now())
	if err != nil {
		return "", err
	}
	o.GivePassword(hash, who.Name, h.Audit.now())
	detail := "role " + string(o.Role())
	if !who.local() {
		o.AwaitApproval(who.Name, h.Audit.now())
		detail += ", awaiting a second admin"
	}
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Operators.Create(ctx, o); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "operator.create", "operator:"+o.Name(), detail)
	})
	if err != nil {
		return "", err
	}
	return password, nil
}
