package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// loanActionView is a loan action's preview page: the preview, and the form's fields to
// propose it with.
type loanActionView struct {
	appconsole.LoanActionPreview
	Form url.Values
}

// loanAction reads a loan action's fields: the preview's query, or the proposal's form. The
// amount is in so'm.
func loanAction(v url.Values, loan uuid.UUID) (appconsole.ProposeLoanAction, error) {
	cmd := appconsole.ProposeLoanAction{Kind: domain.ProposalKind(v.Get("kind")), LoanID: loan, Ref: v.Get("ref"),
		Reason: v.Get("reason")}
	if !cmd.Kind.IsLoanAction() {
		return cmd, fmt.Errorf("%w: choose an action", errBadInput)
	}
	var err error
	if cmd.Terms.Amount, err = soum(v.Get("amount"), "amount"); err != nil {
		return cmd, err
	}
	if m := v.Get("months"); m != "" {
		if cmd.Terms.Months, err = strconv.Atoi(m); err != nil {
			return cmd, fmt.Errorf("%w: months is a whole number", errBadInput)
		}
	}
	if cmd.Kind != domain.ActionManualRepayment {
		return cmd, nil
	}
	if cmd.Terms.PaymentType, err = domain.ParsePaymentType(v.Get("type")); err != nil {
		return cmd, fmt.Errorf("%w: a repayment is TERM or EARLY", errBadInput)
	}
	if cmd.Terms.Channel, err = domain.ParseChannel(v.Get("channel")); err != nil {
		return cmd, fmt.Errorf("%w: the money came by the cash desk or a bank transfer", errBadInput)
	}
	return cmd, nil
}

// previewLoanAction shows what an action would do, before an officer proposes it.
func (c *Console) previewLoanAction(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	var cmd appconsole.ProposeLoanAction
	if err == nil {
		cmd, err = loanAction(r.URL.Query(), id)
	}
	var v appconsole.LoanActionPreview
	if err == nil {
		v, err = c.uc.Views.LoanAction.Handle(r.Context(), session(r).Operator, cmd)
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "loanaction", msg("Preview"), loanActionView{LoanActionPreview: v, Form: r.URL.Query()})
}

// proposeLoanAction records the previewed action as a proposal for a second officer.
func (c *Console) proposeLoanAction(w http.ResponseWriter, r *http.Request) {
	c.act(w, r, "/console/loans/", "propose", func(who appconsole.Actor, id uuid.UUID) error {
		if err := r.ParseForm(); err != nil {
			return fmt.Errorf("%w: %w", errBadInput, err)
		}
		cmd, err := loanAction(r.PostForm, id)
		if err != nil {
			return err
		}
		_, err = c.uc.Actions.ProposeLoanAction.Handle(r.Context(), who, cmd)
		return err
	})
}

// proposal shows a stored loan action proposal as its approval would apply it now.
func (c *Console) proposal(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	var v appconsole.LoanActionPreview
	if err == nil {
		v, err = c.uc.Views.LoanAction.Proposal(r.Context(), session(r).Operator, id)
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "loanaction", msg("Proposal"), loanActionView{LoanActionPreview: v})
}
