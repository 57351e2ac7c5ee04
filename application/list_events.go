package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// EventListWindow is how far back a partner can list its events.
const EventListWindow = 30 * 24 * time.Hour

// MaxEventsListed bounds one page of a partner's events.
const MaxEventsListed = 100

// ListEvents asks for the partner's events numbered after AfterSequence, of Types (all when
// empty), at most Limit (1 to MaxEventsListed).
type ListEvents struct {
	PartnerID     uuid.UUID
	AfterSequence int64
	Limit         int
	Types         []domain.EventType
}

// EventPage is a page of events and the number to ask after for the next one; HasMore says
// whether more events follow it now.
type EventPage struct {
	Events       []ports.ListedEvent
	NextSequence int64
	HasMore      bool
}

// ListEventsHandler lists a partner's events, so that it recovers anything its webhook missed.
type ListEventsHandler struct {
	Clock  ports.Clock
	Events ports.EventOutbox
}

// Handle returns the page.
func (h *ListEventsHandler) Handle(ctx context.Context, q ListEvents) (EventPage, error) {
	var fs domain.Fieldset
	if q.AfterSequence < 0 {
		fs.Add("params.afterSequence", "must be 0 or more")
	}
	if q.Limit < 1 || q.Limit > MaxEventsListed {
		fs.Add("params.limit", "must be from 1 to 100")
	}
	if err := fs.Err(); err != nil {
		return EventPage{}, err
	}
	types := make([]string, len(q.Types))
	for i, t := range q.Types {
		types[i] = t.String()
	}
	evs, err := h.Events.List(ctx, ports.EventQuery{PartnerID: q.PartnerID, AfterSequence: q.AfterSequence,
		Since: h.Clock.Now(q.PartnerID).Add(-EventListWindow), Types: types, Limit: q.Limit + 1})
	if err != nil {
		return EventPage{}, err
	}
	page := EventPage{Events: evs, NextSequence: q.AfterSequence}
	if len(evs) > q.Limit { // one more was read to know that more follow
		page.Events, page.HasMore = evs[:q.Limit], true
		evs = page.Events
	}
	if len(evs) > 0 {
		page.NextSequence = evs[len(evs)-1].Sequence
	}
	return page, nil
}
