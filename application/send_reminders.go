package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SendRemindersReport counts what a pass sent.
type SendRemindersReport struct{ Sent, Failed int }

// SendRemindersHandler sends borrowers the reminders their loans are due (domain.ReminderPolicy),
// each on its partner's clock, only in the daytime hours in Tashkent and within the weekly cap
// per borrower. A reminder is claimed in one transaction (once per loan, rule and instalment:
// never sent twice), sent through the SMS gateway outside any transaction, then recorded as
// sent, with its event for the partner, in another; one the gateway refused or lost is
// recorded FAILED and not sent again.
type SendRemindersHandler struct {
	clock        ports.Clock
	uow          ports.UnitOfWork
	applications ports.ApplicationRepository
	loans        ports.LoanRepository
	collections  ports.CollectionsRepository
	events       ports.EventOutbox
	sms          ports.SMSSender
	policy       domain.ReminderPolicy
}

// NewSendRemindersHandler returns the handler on the ports it uses.
func NewSendRemindersHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository, loans ports.LoanRepository,
	collections ports.CollectionsRepository, events ports.EventOutbox, sms ports.SMSSender, cfg Config) *SendRemindersHandler {
	return &SendRemindersHandler{clock: clock, uow: uow, applications: applications, loans: loans, collections: collections,
		events: events, sms: sms, policy: cfg.Collections.WithDefaults().Reminders}
}

// remindersPage is how many loans a pass reads at a time.
const remindersPage = 200

// week is the weekly cap's window.
const week = 7 * 24 * time.Hour

// Handle runs one pass over every partner's time.
func (h *SendRemindersHandler) Handle(ctx context.Context) (SendRemindersReport, error) {
	var rep SendRemindersReport
	if h.sms == nil {
		return rep, nil
	}
	for _, s := range timeScopes(h.clock) {
		if !h.policy.Daytime(s.now) {
			continue
		}
		windows := h.policy.Windows(s.now)
		after := uuid.Nil
		for {
			ids, err := h.collections.DueForReminder(ctx, s.partners, windows, after, remindersPage)
			if err != nil {
				return rep, err
			}
			for _, id := range ids {
				if err := h.remind(ctx, id, s, &rep); err != nil {
					return rep, err
				}
			}
			if len(ids) < remindersPage {
				break
			}
			after = ids[len(ids)-1]
		}
	}
	return rep, nil
}

// remind sends loan id the reminder it is due at s.now, if any and if its borrower's week
// allows.
func (h *SendRemindersHandler) remind(ctx context.Context, id uuid.UUID, s timeScope, rep *SendRemindersReport) error {
	loan, err := h.loans.Get(ctx, id)
	if err != nil {
		return err
	}
	items, err := loan.ItemsAt(s.now)
	if err != nil {
		return err
	}
	r, ok := h.policy.Due(items, s.now)
	if !ok {
		return nil
	}
	rec := ports.ReminderRecord{ID: NewID(), LoanID: id, PartnerID: loan.PartnerID(), Reminder: r, At: s.now}
	var claimed bool
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		claimed, err = h.collections.ClaimReminder(ctx, rec, s.now.Add(-week), h.policy.PerWeek)
		return err
	})
	if err != nil || !claimed {
		return err
	}
	app, err := h.applications.Get(ctx, loan.ApplicationID())
	if err != nil {
		return err
	}
	contract := loan.ContractNumber()
	sendErr := h.sms.Send(ctx, ports.SMS{Phone: app.Phone(), Text: r.Text(contract), Partner: loan.PartnerID()})
	status := ports.ReminderSent
	if sendErr != nil {
		status = ports.ReminderFailed
		rep.Failed++
	} else {
		rep.Sent++
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.collections.SettleReminder(ctx, rec.ID, status, s.now); err != nil {
			return err
		}
		if sendErr != nil {
			return nil
		}
		ev := domain.ReminderEvent{ApplicationID: loan.ApplicationID(), ContractNumber: contract, Kind: r.Kind, Due: r.Due, Amount: r.Amount}
		if r.Kind == domain.ReminderOverdue {
			ev.Bucket = r.Bucket.String()
		}
		return h.events.Record(ctx, domain.NewReminderEvent(loan.PartnerID(), ev, s.now))
	})
}
