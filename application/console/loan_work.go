package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LoanWork is a loan's collections: who works it, its contact log, its promises to pay and the
// reminders its borrower was sent.
type LoanWork struct {
	Assignment ports.Assignment
	Assigned   bool
	Collector  string
	Notes      []NoteLine
	Promises   []*domain.PromiseToPay
	Reminders  []ports.ReminderRecord
	Collectors []*domain.Operator
}

// NoteLine is a contact log line with its author's name.
type NoteLine struct {
	domain.ContactNote
	Author string
}

// LoanWorkHandler reads a loan's collections for its page.
type LoanWorkHandler struct {
	Loans       ports.LoanRepository
	Collections ports.CollectionsRepository
	Operators   ports.OperatorRepository
}

// Handle reads loan id's collections.
func (h *LoanWorkHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (LoanWork, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return LoanWork{}, err
	}
	var w LoanWork
	if _, err := h.Loans.Get(ctx, id); err != nil {
		return w, err
	}
	var err error
	if w.Assignment, w.Assigned, err = h.Collections.Assignment(ctx, id); err != nil {
		return w, err
	}
	all, err := h.Operators.List(ctx)
	if err != nil {
		return w, err
	}
	names := operatorNames(all)
	for _, o := range all {
		if !o.Disabled() && o.Role().Allows(domain.RoleOfficer) {
			w.Collectors = append(w.Collectors, o)
		}
	}
	w.Collector = names[w.Assignment.Collector]
	notes, err := h.Collections.Notes(ctx, id, pageRows)
	if err != nil {
		return w, err
	}
	for _, n := range notes {
		w.Notes = append(w.Notes, NoteLine{ContactNote: n, Author: names[n.By]})
	}
	if w.Promises, err = h.Collections.Promises(ctx, id, pageRows); err != nil {
		return w, err
	}
	w.Reminders, err = h.Collections.Reminders(ctx, id, pageRows)
	return w, err
}
