package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

func TestCollectionsBuckets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, setting string
		ok            bool
		days          map[int]int // days overdue → bucket index
	}{
		{name: "default buckets place each day", setting: domain.DefaultBuckets, ok: true,
			days: map[int]int{0: -1, 1: 0, 7: 0, 8: 1, 30: 1, 31: 2, 90: 2, 91: 3, 4000: 3}},
		{name: "plus sign opens the last bucket", setting: "1-30, 31+", ok: true, days: map[int]int{30: 0, 31: 1, 400: 1}},
		{name: "a closed last bucket leaves later days out", setting: "1-7,8-30", ok: true, days: map[int]int{30: 1, 31: -1}},
		{name: "a gap is refused", setting: "1-7,9-30"},
		{name: "an overlap is refused", setting: "1-7,7-30"},
		{name: "not starting at day 1 is refused", setting: "2-7"},
		{name: "an open bucket before the last is refused", setting: "1-,8-30"},
		{name: "a backwards range is refused", setting: "1-7,30-8"},
		{name: "words are refused", setting: "week,month"},
		{name: "empty is refused", setting: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bs, err := domain.ParseBuckets(tc.setting)
			if !tc.ok {
				if !errors.Is(err, domain.ErrBuckets) {
					t.Fatalf("ParseBuckets(%q) = %v, %v; want ErrBuckets", tc.setting, bs, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for d, want := range tc.days {
				if got := bs.Of(d); got != want {
					t.Errorf("%d days overdue in bucket %d, want %d", d, got, want)
				}
			}
			again, err := domain.ParseBuckets(bs.String())
			if err != nil || again.String() != bs.String() {
				t.Errorf("%q does not parse back: %v %v", bs.String(), again, err)
			}
		})
	}
}

func TestCollectionsContactNote(t *testing.T) {
	t.Parallel()
	long := make([]rune, 1001)
	for i := range long {
		long[i] = 'a'
	}
	for _, tc := range []struct {
		name, channel, outcome, text string
		ok                           bool
	}{
		{"a call that reached the borrower", "CALL", "REACHED", "will pay Friday", true},
		{"a visit with no note", "VISIT", "NO_ANSWER", "", true},
		{"an unknown channel is refused", "FAX", "REACHED", "", false},
		{"an unknown outcome is refused", "CALL", "HAPPY", "", false},
		{"a note too long is refused", "CALL", "REACHED", string(long), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, err := domain.NewContactNote(uuid.New(), uuid.New(), tc.channel, tc.outcome, " "+tc.text+" ", uuid.New(), time.Now())
			if tc.ok != (err == nil) {
				t.Fatalf("NewContactNote = %v, want ok %v", err, tc.ok)
			}
			if tc.ok && n.Text != tc.text {
				t.Errorf("text %q, want it trimmed to %q", n.Text, tc.text)
			}
			if !tc.ok && !errors.Is(err, domain.ErrContactNote) {
				t.Errorf("error %v, want ErrContactNote", err)
			}
		})
	}
}

func TestPromiseToPay(t *testing.T) {
	t.Parallel()
	// 10:00 on 2026-03-10 in Tashkent.
	made := time.Date(2026, 3, 10, 5, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		amount  int64
		due     time.Time
		refused bool
		paid    int64
		at      time.Time
		want    domain.PromiseStatus
	}{
		{name: "no amount is refused", amount: 0, due: day(12), refused: true},
		{name: "a date in the past is refused", amount: 100, due: day(9), refused: true},
		{name: "a date too far ahead is refused", amount: 100, due: day(10).AddDate(0, 0, 32), refused: true},
		{name: "paid in full before the date is kept", amount: 100, due: day(12), paid: 100, at: day(11), want: domain.PromiseKept},
		{name: "paid on its last evening is kept", amount: 100, due: day(12), paid: 150, at: day(12).Add(18 * time.Hour), want: domain.PromiseKept},
		{name: "short but the date not over stays open", amount: 100, due: day(12), paid: 99, at: day(12).Add(18 * time.Hour), want: domain.PromiseOpen},
		{name: "short when the date ended is broken", amount: 100, due: day(12), paid: 99, at: day(12).Add(19*time.Hour + time.Minute), want: domain.PromiseBroken},
		{name: "nothing paid by the next day is broken", amount: 100, due: day(10), paid: 0, at: day(11).Add(12 * time.Hour), want: domain.PromiseBroken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := domain.NewPromiseToPay(uuid.New(), uuid.New(), uuid.New(), tc.amount, tc.due, uuid.New(), made)
			if tc.refused {
				if !errors.Is(err, domain.ErrPromiseToPay) {
					t.Fatalf("NewPromiseToPay = %v, want ErrPromiseToPay", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			changed := p.Settle(tc.paid, tc.at)
			if p.Status() != tc.want || changed != (tc.want != domain.PromiseOpen) {
				t.Fatalf("Settle = %v, status %v; want %v", changed, p.Status(), tc.want)
			}
			if tc.want != domain.PromiseOpen && p.Settle(tc.amount*2, tc.at.AddDate(0, 0, 5)) {
				t.Error("a settled promise changed again")
			}
		})
	}
}

func TestReminderPolicy(t *testing.T) {
	t.Parallel()
	bs, _ := domain.ParseBuckets(domain.DefaultBuckets)
	p := domain.ReminderPolicy{DaysBefore: 3, Buckets: bs, From: 9, To: 20, PerWeek: 3}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	item := func(d time.Time, principal, paid int64, overdue int) domain.ItemStanding {
		return domain.ItemStanding{ScheduleItem: domain.ScheduleItem{PaymentDate: d, Principal: principal, Interest: 10},
			PaidPrincipal: paid, PaidCharges: map[bool]int64{true: 10}[paid == principal], Overdue: overdue > 0, DaysOverdue: overdue}
	}
	now := time.Date(2026, 5, 20, 6, 0, 0, 0, time.UTC) // 11:00 in Tashkent
	today := domain.BusinessDate(now)
	for _, tc := range []struct {
		name  string
		items []domain.ItemStanding
		key   string
	}{
		{name: "an instalment three days ahead is reminded", items: []domain.ItemStanding{item(today.AddDate(0, 0, 3), 100, 0, 0)},
			key: "before:2026-05-23"},
		{name: "an instalment four days ahead is not yet", items: []domain.ItemStanding{item(today.AddDate(0, 0, 4), 100, 0, 0)}},
		{name: "a paid instalment is skipped for the next", items: []domain.ItemStanding{item(today.AddDate(0, 0, -27), 100, 100, 0),
			item(today.AddDate(0, 0, 2), 100, 0, 0)}, key: "before:2026-05-22"},
		{name: "a missed instalment is reminded in its bucket", items: []domain.ItemStanding{item(today.AddDate(0, 0, -9), 100, 0, 9),
			item(today.AddDate(0, 0, 2), 100, 0, 0)}, key: "overdue:8-30:2026-05-11"},
		{name: "the first day overdue is the first bucket", items: []domain.ItemStanding{item(today.AddDate(0, 0, -1), 100, 40, 1)},
			key: "overdue:1-7:2026-05-19"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, ok := p.Due(tc.items, now)
			if ok != (tc.key != "") || ok && r.Key() != tc.key {
				t.Fatalf("Due = %v %v (%s), want %q", r, ok, r.Key(), tc.key)
			}
		})
	}
	for _, tc := range []struct {
		hour int
		want bool
	}{{8, false}, {9, true}, {19, true}, {20, false}, {2, false}} {
		at := time.Date(2026, 5, 20, tc.hour, 30, 0, 0, domain.Tashkent)
		if got := p.Daytime(at); got != tc.want {
			t.Errorf("Daytime at %02d:30 Tashkent = %v, want %v", tc.hour, got, tc.want)
		}
	}
	// The loans worth reading at 2026-05-20: due within 3 days, or entered a bucket (day 1, 8,
	// 31, 91) within the last 3 days.
	w := p.Windows(now)
	if len(w) != 5 || w[0] != (domain.DateRange{From: today, To: today.AddDate(0, 0, 3)}) ||
		w[2] != (domain.DateRange{From: today.AddDate(0, 0, -11), To: today.AddDate(0, 0, -8)}) {
		t.Errorf("windows %v", w)
	}
	if (domain.ReminderPolicy{From: 20, To: 9}).Validate() == nil {
		t.Error("a window that ends before it starts is accepted")
	}
}
