package application

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// Webhook delivery settings (DESIGN.md §11).
const (
	// WebhookTimeout bounds one delivery: a partner's webhook answers within it or the attempt
	// failed.
	WebhookTimeout = 10 * time.Second
	// EventRetryFor is how long after an event was recorded delivery is still tried.
	EventRetryFor = 24 * time.Hour
	// eventLease is how long a claimed event is left to its deliverer before another takes it.
	eventLease = WebhookTimeout + 20*time.Second
	// eventBatch bounds the events one round claims; eventParallel how many go out at once;
	// eventRounds how many rounds a pass runs while events go out (an object's next event is
	// due once its last is delivered); sequenceBatch how many new events a pass numbers.
	eventBatch    = 100
	eventParallel = 8
	eventRounds   = 10
	sequenceBatch = 1000
	// firstRetry and lastRetry bound the exponential backoff between attempts.
	firstRetry = time.Second
	lastRetry  = time.Hour
)

// EventRetryAfter is the wait after the given number of failed attempts: 1 s, doubling, at
// most an hour.
func EventRetryAfter(failures int) time.Duration {
	if failures < 1 {
		return 0
	}
	d := firstRetry
	for i := 1; i < failures && d < lastRetry; i++ {
		d *= 2
	}
	return min(d, lastRetry)
}

// DeliveryReport counts what one delivery pass did.
type DeliveryReport struct {
	Delivered, Failed, GivenUp int
}

// DeliverEventsHandler numbers new events and delivers due events to their partners' webhooks:
// at least once, one object's in the order they were recorded (a later one waits for the
// earlier to be delivered or given up), retrying a failed delivery with exponential backoff
// for EventRetryFor.
// Every time is the event's partner's, so advancing a partner's sandbox clock also brings its
// retries forward, and only its.
type DeliverEventsHandler struct {
	clock    ports.Clock
	uow      ports.UnitOfWork
	events   ports.EventOutbox
	webhooks ports.WebhookSender
	sealer   ports.Sealer
	opsLog   ports.OpsLog
}

// NewDeliverEventsHandler returns the handler on the ports it uses.
func NewDeliverEventsHandler(clock ports.Clock, uow ports.UnitOfWork, events ports.EventOutbox, webhooks ports.WebhookSender,
	sealer ports.Sealer, opsLog ports.OpsLog) *DeliverEventsHandler {
	return &DeliverEventsHandler{clock: clock, uow: uow, events: events, webhooks: webhooks, sealer: sealer, opsLog: orNoOpsLog(opsLog)}
}

// Handle runs one pass: it numbers the events recorded since the last, then delivers, a batch
// for each set of partners that share one time, round after round while events go out.
func (h *DeliverEventsHandler) Handle(ctx context.Context) (DeliveryReport, error) {
	var rep DeliveryReport
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		_, err := h.events.Sequence(ctx, sequenceBatch)
		return err
	})
	if err != nil {
		return rep, err
	}
	for range eventRounds {
		before := rep
		for _, s := range timeScopes(h.clock) {
			if err := h.deliver(ctx, s, &rep); err != nil {
				return rep, err
			}
		}
		if rep == before {
			break
		}
	}
	return rep, nil
}

// deliver claims the due events of one set of partners and tries each.
func (h *DeliverEventsHandler) deliver(ctx context.Context, s timeScope, rep *DeliveryReport) error {
	var due []ports.OutboundEvent
	err := h.uow.Do(ctx, func(ctx context.Context) (err error) {
		due, err = h.events.ClaimDue(ctx, s.partners, s.now, eventLease, eventBatch)
		return err
	})
	if err != nil || len(due) == 0 {
		return err
	}
	outcomes := make([]ports.EventOutcome, len(due))
	var wg sync.WaitGroup
	slots := make(chan struct{}, eventParallel)
	for i, ev := range due {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			outcomes[i] = h.attempt(ctx, ev)
		}()
	}
	wg.Wait()
	// One transaction settles the batch; if it fails, the batch stays leased and is taken
	// again when the lease ends (delivery is at least once).
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		for i, o := range outcomes {
			if err := h.events.Settle(ctx, due[i].ID, o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, o := range outcomes {
		switch {
		case !o.DeliveredAt.IsZero():
			rep.Delivered++
		case o.NextAttemptAt.IsZero():
			rep.GivenUp++
		default:
			rep.Failed++
		}
	}
	return nil
}

func (h *DeliverEventsHandler) attempt(ctx context.Context, ev ports.OutboundEvent) ports.EventOutcome {
	o := ports.EventOutcome{Attempts: ev.Attempts + 1}
	if ev.URL == "" {
		o.Error = "the partner removed its webhook"
		return o
	}
	now := h.clock.Now(ev.PartnerID)
	w := ports.Webhook{URL: ev.URL, EventID: ev.ID, Type: ev.Type, Body: ev.Body}
	secret, err := h.sealer.Open(ev.SealedSecret, "")
	w.Secret = secret
	if err == nil && ev.PreviousSealedSecret != "" && now.Before(ev.PreviousUntil) {
		// The secret the current one replaced signs beside it until its overlap ends.
		w.PreviousSecret, err = h.sealer.Open(ev.PreviousSealedSecret, "")
	}
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, WebhookTimeout)
		err = h.webhooks.Send(cctx, w)
		cancel()
		now = h.clock.Now(ev.PartnerID)
	}
	if err == nil {
		o.DeliveredAt = now
		return o
	}
	o.Error = err.Error()
	if next := now.Add(EventRetryAfter(o.Attempts)); next.Sub(ev.CreatedAt) <= EventRetryFor {
		o.NextAttemptAt = next
	}
	h.tell(ctx, ev, o)
	return o
}

// tell the on-call engineer of a delivery that failed: the partner, the event, the webhook's
// host (never its path or query, which may carry a partner's token) and the attempt.
func (h *DeliverEventsHandler) tell(ctx context.Context, ev ports.OutboundEvent, o ports.EventOutcome) {
	host, reason := "", o.Error
	if u, err := url.Parse(ev.URL); err == nil && ev.URL != "" {
		host = u.Host
		reason = strings.ReplaceAll(reason, ev.URL, u.Scheme+"://"+u.Host)
	}
	f := ports.Failure{Event: "webhook.failed", PartnerID: ev.PartnerID, Object: "event:" + ev.ID.String(), Detail: ev.Type,
		Target: host, Attempt: o.Attempts, Reason: reason}
	if o.NextAttemptAt.IsZero() {
		f.Event, f.Final = "webhook.given_up", true
	}
	h.opsLog.Failure(ctx, f)
}
