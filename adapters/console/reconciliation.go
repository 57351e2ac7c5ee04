package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// reconciliation shows the breaks of a status (OPEN by default) and a day (any by default).
func (c *Console) reconciliation(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := ports.BreakQuery{Status: v.Get("status")}
	if d := v.Get("day"); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		if err != nil {
			c.fail(w, r, fmt.Errorf("%w: the day is YYYY-MM-DD", errBadInput))
			return
		}
		q.Day = day
	}
	p, err := c.uc.Views.Reconciliation.Handle(r.Context(), session(r).Operator, q)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "reconciliation", msg("Reconciliation"), p)
}

// runReconciliation reconciles the day the form names with every source.
func (c *Console) runReconciliation(w http.ResponseWriter, r *http.Request) {
	day, err := time.Parse(time.DateOnly, r.PostFormValue("day"))
	if err != nil {
		c.fail(w, r, fmt.Errorf("%w: the day is YYYY-MM-DD", errBadInput))
		return
	}
	if _, err := c.uc.Actions.RunReconciliation.Handle(r.Context(), session(r).Operator, day); err != nil {
		c.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/console/reconciliation?done=reconciled&day="+day.Format(time.DateOnly), http.StatusSeeOther)
}

// explainBreak marks a break explained with the officer's note.
func (c *Console) explainBreak(w http.ResponseWriter, r *http.Request) {
	c.workBreak(w, r, "explained", func(who application.Actor, id uuid.UUID, note string) error {
		return c.uc.Actions.ExplainBreak.Handle(r.Context(), who, id, note)
	})
}

// acceptBreak proposes accepting a break's other side, with the officer's note; a second
// officer approves it on this page or the dashboard.
func (c *Console) acceptBreak(w http.ResponseWriter, r *http.Request) {
	c.workBreak(w, r, "accept_proposed", func(who application.Actor, id uuid.UUID, note string) error {
		_, err := c.uc.Actions.ProposeBreakAcceptance.Handle(r.Context(), who, id, note)
		return err
	})
}

// workBreak runs an action on the break the path names, with the form's note, and returns to
// the reconciliation page with msg.
func (c *Console) workBreak(w http.ResponseWriter, r *http.Request, msg string, fn func(application.Actor, uuid.UUID, string) error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err == nil {
		err = fn(session(r).Operator, id, r.PostFormValue("note"))
	} else {
		err = errNotFound
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, "/console/reconciliation", msg)
}
