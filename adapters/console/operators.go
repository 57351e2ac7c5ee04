package console

import (
	"net/http"
	"strings"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// The operators page (admins): the console's accounts, and the access grants awaiting a
// second admin. A new operator and a higher role wait for one; a one-time password is shown in
// the answer that made it only.

// operatorsView is the operators page, with what an action just made.
type operatorsView struct {
	appconsole.OperatorList
	Roles []domain.Role
	// Password is a one-time password just made, for Name; shown this once.
	Name, Password string
	Pending        bool // the change awaits a second admin
}

func (c *Console) operators(w http.ResponseWriter, r *http.Request) {
	c.operatorsPage(w, r, operatorsView{})
}

func (c *Console) operatorsPage(w http.ResponseWriter, r *http.Request, v operatorsView) {
	list, err := c.uc.Operators.ListOperators.Handle(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	v.OperatorList, v.Roles = list, []domain.Role{domain.RoleViewer, domain.RoleOfficer, domain.RoleAdmin}
	c.show(w, r, "operators", msg("Operators"), v)
}

// createOperator makes an operator, who logs in once a second admin approves.
func (c *Console) createOperator(w http.ResponseWriter, r *http.Request) {
	role, err := domain.ParseRole(r.PostFormValue("role"))
	if err != nil {
		c.fail(w, r, err)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	pw, err := c.uc.Operators.CreateOperator.Handle(r.Context(), session(r).Operator, appconsole.CreateOperator{Name: name, Role: role})
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.operatorsPage(w, r, operatorsView{Name: name, Password: pw, Pending: true})
}

// operatorAction changes an operator: role, disable, enable, reset_password,
// reset_second_factor (which waits for a second admin), approve, reject.
func (c *Console) operatorAction(w http.ResponseWriter, r *http.Request) {
	who, name := session(r).Operator, r.PathValue("name")
	var err error
	switch action := r.PathValue("action"); action {
	case "role":
		var role domain.Role
		if role, err = domain.ParseRole(r.PostFormValue("role")); err == nil {
			var pending bool
			pending, err = c.uc.Operators.ChangeRole.Handle(r.Context(), who, appconsole.ChangeOperatorRole{Name: name, Role: role})
			if err == nil && pending {
				done(w, r, "/console/operators", "role_pending")
				return
			}
		}
	case "disable", "enable":
		err = c.uc.Operators.SetOperatorDisabled.Handle(r.Context(), who, appconsole.SetOperatorDisabled{Name: name, Disabled: action == "disable"})
	case "reset_second_factor":
		if _, err = c.uc.Operators.ResetSecondFactor.Handle(r.Context(), who, appconsole.ResetSecondFactor{Name: name}); err == nil {
			done(w, r, "/console/operators", "factor_pending")
			return
		}
	case "approve", "reject":
		err = c.uc.Operators.DecideGrant.Handle(r.Context(), who, appconsole.DecideOperatorGrant{Name: name, Approve: action == "approve"})
	case "reset_password":
		var pw string
		if pw, err = c.uc.Operators.ResetOperatorPassword.Handle(r.Context(), who, appconsole.ResetOperatorPassword{Name: name}); err == nil {
			c.operatorsPage(w, r, operatorsView{Name: name, Password: pw})
			return
		}
	default:
		err = errNotFound
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, "/console/operators", "operator")
}
