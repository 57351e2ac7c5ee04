package application

import (
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// timeScope is a set of partners whose clocks tell one time: background work on their objects
// is decided against now.
type timeScope struct {
	partners ports.Partners
	now      time.Time
}

// timeScopes splits the partners by their time: first all partners on the system time, then
// each partner whose sandbox clock is ahead of it, alone. Outside the sandbox there is one.
func timeScopes(clock ports.Clock) []timeScope {
	ahead := clock.Ahead()
	scopes := make([]timeScope, 0, 1+len(ahead))
	scopes = append(scopes, timeScope{ports.Partners{Except: ahead}, clock.Now(uuid.Nil)})
	for _, p := range ahead {
		scopes = append(scopes, timeScope{ports.Partners{Only: p}, clock.Now(p)})
	}
	return scopes
}

// BusinessToday is each partner's business date on its own clock: the system's, and in the
// sandbox the own date of each partner whose clock is ahead of it. A view across partners
// reads each partner's objects at its date, as each object's page does.
func BusinessToday(clock ports.Clock) ports.Today {
	t := ports.Today{Date: domain.BusinessDate(clock.Now(uuid.Nil))}
	for _, p := range clock.Ahead() {
		if t.Ahead == nil {
			t.Ahead = map[uuid.UUID]time.Time{}
		}
		t.Ahead[p] = domain.BusinessDate(clock.Now(p))
	}
	return t
}

// QueueScopes are the partners' todays: all partners on the system time, then each partner whose
// sandbox clock is ahead of it.
func QueueScopes(clock ports.Clock) []ports.QueueScope {
	ts := timeScopes(clock)
	out := make([]ports.QueueScope, len(ts))
	for i, s := range ts {
		out[i] = ports.QueueScope{Partners: s.partners, Today: domain.BusinessDate(s.now)}
	}
	return out
}

// LatestNow is the latest time of the clock: the system time, or in the sandbox the time of a
// partner whose clock is ahead of it (its movements are filed on its own days).
func LatestNow(clock ports.Clock) time.Time {
	now := clock.Now(uuid.Nil)
	for _, p := range clock.Ahead() {
		if t := clock.Now(p); t.After(now) {
			now = t
		}
	}
	return now
}
