package client

import (
	"context"
	"time"
)

// Sandbox holds the test controls of a sandbox server (TIYIN_SANDBOX): anywhere else they
// answer code 6. Each partner has its own clock and outbox: these calls touch only the
// calling partner's objects.
type Sandbox struct{ c *Client }

// AdvanceClock moves the partner's sandbox clock forward by d (never back; 0 reads it) and
// returns the new time: everything time-dependent of the partner's objects (contract number,
// expiry, overdue, penalties, webhook retries) follows. At most 100 years ahead in all.
func (s *Sandbox) AdvanceClock(ctx context.Context, d time.Duration, opts ...CallOption) (time.Time, error) {
	r, err := call[clockResult](ctx, s.c, s.c.api.AdvanceClockWithBody, advanceClockParams{d.String()}, opts)
	if err != nil {
		return time.Time{}, err
	}
	return r.Now, nil
}

type advanceClockParams struct {
	Duration string `json:"duration"`
}

type clockResult struct {
	Now time.Time `json:"now"`
}

// SMS is a message the sandbox sent to a phone: Code is the attach code it carries.
type SMS struct {
	PhoneNumber string    `json:"phoneNumber"`
	Text        string    `json:"text"`
	Code        string    `json:"code"`
	SentAt      time.Time `json:"sentAt"`
}

// Outbox reads the SMS messages the partner's calls sent to phoneNumber, newest first.
func (s *Sandbox) Outbox(ctx context.Context, phoneNumber string, opts ...CallOption) ([]SMS, error) {
	r, err := call[outboxResult](ctx, s.c, s.c.api.SmsOutboxWithBody, outboxParams{phoneNumber}, opts)
	if err != nil {
		return nil, err
	}
	return r.Messages, nil
}

type outboxParams struct {
	PhoneNumber string `json:"phoneNumber"`
}

type outboxResult struct {
	Messages []SMS `json:"messages"`
}

// CompleteVerificationResult is tiyin's word that the phone verification is complete.
type CompleteVerificationResult struct {
	Message string `json:"message"`
}

// CompleteVerification does the call centre's side of a required phone verification
// (Verify answered PhoneCallRequired): the application may then be issued.
func (s *Sandbox) CompleteVerification(ctx context.Context, applicationID UUID, opts ...CallOption) (*CompleteVerificationResult, error) {
	return call[CompleteVerificationResult](ctx, s.c, s.c.api.CompleteVerificationWithBody, applicationIDParams{applicationID}, opts)
}

// SendTestEventResult is the TEST event's id.
type SendTestEventResult struct {
	EventID UUID `json:"eventId"`
}

// SendTestEvent records a TEST event, delivered to the partner's webhook (if set) and listed
// like any other: a way to try the receiver's signature check and acknowledgement.
func (s *Sandbox) SendTestEvent(ctx context.Context, opts ...CallOption) (*SendTestEventResult, error) {
	return call[SendTestEventResult](ctx, s.c, s.c.api.SendTestEventWithBody, noParams{}, opts)
}

// Reset erases everything the partner's key made in this sandbox (its applications, loans,
// transfers, cards, events, …) and sets its clock back to the real time, which it returns.
// Other partners' objects and clocks are untouched; the key and the webhook stay.
func (s *Sandbox) Reset(ctx context.Context, opts ...CallOption) (time.Time, error) {
	r, err := call[clockResult](ctx, s.c, s.c.api.ResetSandboxWithBody, noParams{}, opts)
	if err != nil {
		return time.Time{}, err
	}
	return r.Now, nil
}

// noParams are the params of the calls that take none: {}.
type noParams struct{}
