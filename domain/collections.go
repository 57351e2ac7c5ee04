package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Collections is the work of the bank's collectors on overdue loans: queues by days overdue,
// a contact log, promises to pay and reminders to borrowers (docs/console.md, "Collections").

// ErrBuckets means a collections bucket setting does not describe ascending, non-overlapping
// ranges of days overdue.
var ErrBuckets = errors.New("collections buckets are ranges of days overdue such as 1-7,8-30,31-90,91-, ascending and without gaps or overlaps")

// ErrPromiseToPay means a promise to pay was refused: no amount, or a date before today or too
// far ahead.
var ErrPromiseToPay = errors.New("a promise to pay needs an amount above zero and a date from today to 31 days ahead")

// ErrCollector means a loan was given to an operator who may not work it: disabled, or a viewer.
var ErrCollector = errors.New("a loan goes to an enabled officer or admin")

// ErrPromiseNotFound means no promise to pay has that id.
var ErrPromiseNotFound = errors.New("promise to pay not found")

// ErrContactNote means a contact log entry lacks its channel or outcome, or its note is too long.
var ErrContactNote = errors.New("a contact needs a channel and an outcome, and a note of at most 1000 characters")

// Bucket is a range of days overdue, both ends included; To is 0 for an open end (91+).
type Bucket struct{ From, To int }

// String is the bucket as the setting and the console write it: 1-7, or 91+.
func (b Bucket) String() string {
	if b.To == 0 {
		return strconv.Itoa(b.From) + "+"
	}
	return strconv.Itoa(b.From) + "-" + strconv.Itoa(b.To)
}

// Holds reports whether a loan days overdue is in the bucket.
func (b Bucket) Holds(days int) bool { return days >= b.From && (b.To == 0 || days <= b.To) }

// Buckets are the collections queues' ranges of days overdue, ascending and contiguous.
type Buckets []Bucket

// DefaultBuckets is the setting's default: a week, a month, a quarter, beyond.
const DefaultBuckets = "1-7,8-30,31-90,91-"

// ParseBuckets reads a bucket setting such as "1-7,8-30,31-90,91-": ascending ranges from day 1,
// each starting the day after the one before ends; only the last may be open ("91-" or "91+").
func ParseBuckets(s string) (Buckets, error) {
	var out Buckets
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		from, to, ok := strings.Cut(strings.TrimSuffix(part, "+"), "-")
		if strings.HasSuffix(part, "+") {
			from, to, ok = strings.TrimSuffix(part, "+"), "", true
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrBuckets, part)
		}
		f, err := strconv.Atoi(from)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", ErrBuckets, part)
		}
		b := Bucket{From: f}
		if to != "" {
			if b.To, err = strconv.Atoi(to); err != nil || b.To < b.From {
				return nil, fmt.Errorf("%w: %q", ErrBuckets, part)
			}
		}
		want := 1
		if i > 0 {
			want = out[i-1].To + 1
			if out[i-1].To == 0 {
				return nil, fmt.Errorf("%w: only the last bucket may be open", ErrBuckets)
			}
		}
		if b.From != want {
			return nil, fmt.Errorf("%w: %q should start at day %d", ErrBuckets, part, want)
		}
		out = append(out, b)
	}
	return out, nil
}

// Of is the index of the bucket that holds days overdue, -1 when none does (not overdue, or
// past a closed last bucket).
func (bs Buckets) Of(days int) int {
	for i, b := range bs {
		if b.Holds(days) {
			return i
		}
	}
	return -1
}

// String is the setting that parses to bs.
func (bs Buckets) String() string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.String()
	}
	return strings.Join(parts, ",")
}

// ContactChannel is how a collector reached, or tried to reach, a borrower.
type ContactChannel struct{ s string }

// The contact channels.
var (
	ContactCall    = ContactChannel{"CALL"}
	ContactSMS     = ContactChannel{"SMS"}
	ContactVisit   = ContactChannel{"VISIT"}
	ContactLetter  = ContactChannel{"LETTER"}
	ContactMessage = ContactChannel{"MESSENGER"}
)

// ContactChannels lists every contact channel.
func ContactChannels() []ContactChannel {
	return []ContactChannel{ContactCall, ContactSMS, ContactVisit, ContactLetter, ContactMessage}
}

// ParseContactChannel reads a channel.
func ParseContactChannel(s string) (ContactChannel, error) { return parseEnum(s, ContactChannels()) }

// String returns the stored name.
func (c ContactChannel) String() string { return c.s }

// IsZero reports whether the channel is unset.
func (c ContactChannel) IsZero() bool { return c.s == "" }

// ContactOutcome is what a contact came to.
type ContactOutcome struct{ s string }

// The contact outcomes.
var (
	ContactReached     = ContactOutcome{"REACHED"}
	ContactNoAnswer    = ContactOutcome{"NO_ANSWER"}
	ContactWrongNumber = ContactOutcome{"WRONG_NUMBER"}
	ContactPromised    = ContactOutcome{"PROMISED"}
	ContactRefused     = ContactOutcome{"REFUSED"}
	ContactCallBack    = ContactOutcome{"CALL_BACK"}
)

// ContactOutcomes lists every contact outcome.
func ContactOutcomes() []ContactOutcome {
	return []ContactOutcome{ContactReached, ContactNoAnswer, ContactWrongNumber, ContactPromised, ContactRefused, ContactCallBack}
}

// ParseContactOutcome reads an outcome.
func ParseContactOutcome(s string) (ContactOutcome, error) { return parseEnum(s, ContactOutcomes()) }

// String returns the stored name.
func (o ContactOutcome) String() string { return o.s }

// IsZero reports whether the outcome is unset.
func (o ContactOutcome) IsZero() bool { return o.s == "" }

// ContactNote is one line of a loan's contact log: who contacted the borrower, how, when, and
// what came of it. It is never edited: a correction is a new line.
type ContactNote struct {
	ID      uuid.UUID
	LoanID  uuid.UUID
	Channel ContactChannel
	Outcome ContactOutcome
	Text    string
	By      uuid.UUID
	At      time.Time
}

// maxNote bounds a contact's note, in characters.
const maxNote = 1000

// NewContactNote validates a contact log line.
func NewContactNote(id, loanID uuid.UUID, channel, outcome, text string, by uuid.UUID, at time.Time) (ContactNote, error) {
	ch, err := ParseContactChannel(channel)
	if err != nil {
		return ContactNote{}, ErrContactNote
	}
	out, err := ParseContactOutcome(outcome)
	if err != nil {
		return ContactNote{}, ErrContactNote
	}
	text = strings.TrimSpace(text)
	if len([]rune(text)) > maxNote {
		return ContactNote{}, ErrContactNote
	}
	return ContactNote{ID: id, LoanID: loanID, Channel: ch, Outcome: out, Text: text, By: by, At: at}, nil
}

// PromiseStatus is where a promise to pay is: OPEN until its date ends or it is paid, then KEPT
// or BROKEN.
type PromiseStatus struct{ s string }

// The promise statuses.
var (
	PromiseOpen   = PromiseStatus{"OPEN"}
	PromiseKept   = PromiseStatus{"KEPT"}
	PromiseBroken = PromiseStatus{"BROKEN"}
)

// ParsePromiseStatus reads a stored status.
func ParsePromiseStatus(s string) (PromiseStatus, error) {
	return parseEnum(s, []PromiseStatus{PromiseOpen, PromiseKept, PromiseBroken})
}

// String returns the stored name.
func (s PromiseStatus) String() string { return s.s }

// IsZero reports whether the status is unset.
func (s PromiseStatus) IsZero() bool { return s.s == "" }

// maxPromiseDays is how far ahead a promise's date may be.
const maxPromiseDays = 31

// PromiseToPay is a borrower's word to pay an amount on the loan by a date (a business date in
// Tashkent). Payments posted from the moment it was made count towards it; it is kept once
// they reach its amount, and broken when its date ends short of it.
type PromiseToPay struct {
	id, loanID uuid.UUID
	partnerID  uuid.UUID
	amount     int64
	due        time.Time
	by         uuid.UUID
	madeAt     time.Time
	status     PromiseStatus
	paid       int64
	settledAt  time.Time
}

// NewPromiseToPay makes an open promise of amount by due (a business date), made at now.
func NewPromiseToPay(id, loanID, partnerID uuid.UUID, amount int64, due time.Time, by uuid.UUID, now time.Time) (*PromiseToPay, error) {
	today := BusinessDate(now)
	due = BusinessDate(time.Date(due.Year(), due.Month(), due.Day(), 12, 0, 0, 0, Tashkent))
	if amount <= 0 || due.Before(today) || due.After(today.AddDate(0, 0, maxPromiseDays)) {
		return nil, ErrPromiseToPay
	}
	return &PromiseToPay{id: id, loanID: loanID, partnerID: partnerID, amount: amount, due: due, by: by, madeAt: now, status: PromiseOpen}, nil
}

// PromiseState is a promise's stored form.
type PromiseState struct {
	ID, LoanID uuid.UUID
	PartnerID  uuid.UUID
	Amount     int64
	Due        time.Time
	By         uuid.UUID
	MadeAt     time.Time
	Status     PromiseStatus
	Paid       int64
	SettledAt  time.Time
}

// RestorePromiseToPay rebuilds a stored promise. Only repositories may call it: it skips the
// constructor's checks.
func RestorePromiseToPay(s PromiseState) *PromiseToPay {
	return &PromiseToPay{id: s.ID, loanID: s.LoanID, partnerID: s.PartnerID, amount: s.Amount, due: s.Due, by: s.By, madeAt: s.MadeAt,
		status: s.Status, paid: s.Paid, settledAt: s.SettledAt}
}

// State is the promise's stored form.
func (p *PromiseToPay) State() PromiseState {
	return PromiseState{ID: p.id, LoanID: p.loanID, PartnerID: p.partnerID, Amount: p.amount, Due: p.due, By: p.by, MadeAt: p.madeAt,
		Status: p.status, Paid: p.paid, SettledAt: p.settledAt}
}

// ID is the promise's id.
func (p *PromiseToPay) ID() uuid.UUID { return p.id }

// LoanID is the loan promised on.
func (p *PromiseToPay) LoanID() uuid.UUID { return p.loanID }

// PartnerID is the loan's partner, whose clock decides the promise.
func (p *PromiseToPay) PartnerID() uuid.UUID { return p.partnerID }

// Amount is what was promised.
func (p *PromiseToPay) Amount() int64 { return p.amount }

// Due is the promise's date, a business date.
func (p *PromiseToPay) Due() time.Time { return p.due }

// Paid is what was paid towards the promise when it was last settled.
func (p *PromiseToPay) Paid() int64 { return p.paid }

// Status is where the promise is.
func (p *PromiseToPay) Status() PromiseStatus { return p.status }

// MadeAt is when the promise was made; payments from then count towards it.
func (p *PromiseToPay) MadeAt() time.Time { return p.madeAt }

// Settle decides the promise at now from what was paid on the loan since it was made: kept
// once paid reaches its amount (even on its last day), broken once its date has ended short
// of it, open otherwise. It reports whether the status changed; a settled promise never
// changes again.
func (p *PromiseToPay) Settle(paid int64, now time.Time) bool {
	if p.status != PromiseOpen {
		return false
	}
	p.paid = paid
	switch {
	case paid >= p.amount:
		p.status = PromiseKept
	case BusinessDate(now).After(p.due):
		p.status = PromiseBroken
	default:
		return false
	}
	p.settledAt = now
	return true
}

// ReminderKind says why a reminder goes: an instalment coming due, or one missed.
type ReminderKind struct{ s string }

// The reminder kinds.
var (
	ReminderBeforeDue = ReminderKind{"BEFORE_DUE"}
	ReminderOverdue   = ReminderKind{"OVERDUE"}
)

// String returns the stored name.
func (k ReminderKind) String() string { return k.s }

// ParseReminderKind reads a stored kind.
func ParseReminderKind(s string) (ReminderKind, error) {
	return parseEnum(s, []ReminderKind{ReminderBeforeDue, ReminderOverdue})
}

// ReminderPolicy is when reminders go to borrowers: some days before an instalment's date,
// once in each overdue bucket an instalment is missed into, within daytime hours in Tashkent,
// and at most a number a week per borrower.
type ReminderPolicy struct {
	// DaysBefore is how many days before an instalment's date its reminder goes; 0: none.
	DaysBefore int
	// Buckets are the overdue buckets: a missed instalment's reminder goes once in each.
	Buckets Buckets
	// From and To are the hours of the day, Tashkent time, a reminder may go: from From:00 to
	// To:00 (To excluded).
	From, To int
	// PerWeek bounds the reminders one borrower gets in any seven days.
	PerWeek int
}

// Reminder is one reminder a loan is due: its rule (kind and, when overdue, bucket) and the
// instalment it is about. Key names it: the same rule never goes twice for an instalment.
type Reminder struct {
	Kind   ReminderKind
	Bucket Bucket // the overdue bucket; zero before the due date
	Due    time.Time
	Amount int64 // what the instalment still asks
}

// Key is the reminder's rule and instalment, unique per loan.
func (r Reminder) Key() string {
	if r.Kind == ReminderBeforeDue {
		return "before:" + r.Due.Format(time.DateOnly)
	}
	return "overdue:" + r.Bucket.String() + ":" + r.Due.Format(time.DateOnly)
}

// Daytime reports whether now is within the hours reminders may go, Tashkent time.
func (p ReminderPolicy) Daytime(now time.Time) bool {
	h := now.In(Tashkent).Hour()
	return h >= p.From && h < p.To
}

// Due is the reminder a loan is due at now, given its schedule there: before its next unpaid
// instalment's date (within DaysBefore days), or, for its earliest missed one, the one of the
// bucket its days overdue fall in. ok is false when none is.
func (p ReminderPolicy) Due(items []ItemStanding, now time.Time) (Reminder, bool) {
	today := BusinessDate(now)
	for _, it := range items {
		left := it.OutstandingPrincipal() + it.OutstandingCharges()
		if left <= 0 {
			continue
		}
		if it.Overdue {
			i := p.Buckets.Of(it.DaysOverdue)
			if i < 0 {
				return Reminder{}, false
			}
			return Reminder{Kind: ReminderOverdue, Bucket: p.Buckets[i], Due: it.PaymentDate, Amount: left}, true
		}
		if p.DaysBefore > 0 && !it.PaymentDate.Before(today) && !it.PaymentDate.After(today.AddDate(0, 0, p.DaysBefore)) {
			return Reminder{Kind: ReminderBeforeDue, Due: it.PaymentDate, Amount: left}, true
		}
		return Reminder{}, false
	}
	return Reminder{}, false
}

// ReminderGrace is how many days after its day a reminder that could not go (at night, over
// the week's cap) is still tried; after that its rule waits for the next instalment or bucket.
const ReminderGrace = 3

// DateRange is a range of business dates, both ends included.
type DateRange struct{ From, To time.Time }

// Windows are the first unpaid dates of the loans a reminder may be due for at now: an
// instalment within DaysBefore days, or one that entered an overdue bucket within the last
// ReminderGrace days. Only those loans need their schedules read.
func (p ReminderPolicy) Windows(now time.Time) []DateRange {
	today := BusinessDate(now)
	var out []DateRange
	if p.DaysBefore > 0 {
		out = append(out, DateRange{today, today.AddDate(0, 0, p.DaysBefore)})
	}
	for _, b := range p.Buckets {
		out = append(out, DateRange{today.AddDate(0, 0, -b.From-ReminderGrace), today.AddDate(0, 0, -b.From)})
	}
	return out
}

// Validate refuses a policy whose hours or cap make no sense.
func (p ReminderPolicy) Validate() error {
	if p.From < 0 || p.To > 24 || p.From >= p.To || p.PerWeek < 0 || p.DaysBefore < 0 {
		return errors.New("reminders need hours 0–24 with from before to, and no negative cap or days")
	}
	return nil
}

// ReminderEvent is a reminder sent to a borrower, told to the partner so that its app can show
// it too.
type ReminderEvent struct {
	ApplicationID  uuid.UUID
	ContractNumber string
	Kind           ReminderKind
	Bucket         string // the overdue bucket, "" before the due date
	Due            time.Time
	Amount         int64
}

// EventType implements EventData.
func (ReminderEvent) EventType() EventType { return EventReminderSent }

// Object implements EventData.
func (d ReminderEvent) Object() uuid.UUID { return d.ApplicationID }

// NewReminderEvent is the event of a reminder sent at now.
func NewReminderEvent(partnerID uuid.UUID, d ReminderEvent, now time.Time) Event {
	return Event{ID: uuid.Must(uuid.NewV7()), PartnerID: partnerID, At: now, Data: d}
}

// Text is the reminder's message to the borrower, in Uzbek: the contract, the amount in so'm
// and the date. It names no personal data.
func (r Reminder) Text(contract string) string {
	sum := fmt.Sprintf("%d.%02d", r.Amount/100, r.Amount%100)
	date := r.Due.Format("02.01.2006")
	if r.Kind == ReminderBeforeDue {
		return "tiyin: " + contract + " shartnoma boʻyicha " + sum + " soʻm toʻlov muddati " + date + ". Oʻz vaqtida toʻlang."
	}
	return "tiyin: " + contract + " shartnoma boʻyicha " + sum + " soʻm toʻlov " + date + " dan beri kechikmoqda. Iltimos, toʻlang."
}
