package domain

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Card errors.
var (
	// ErrCardNotFound means no card of the partner has that id.
	ErrCardNotFound = refusal("card-not-found", "card not found")
	// ErrCardAttached means the card is attached (confirmed) already.
	ErrCardAttached = refusal("card-attached", "card already attached")
	// ErrCardStatus means the card's status does not allow the change.
	ErrCardStatus = refusal("card-status", "card status change not allowed")
	// ErrOTPExpired means the SMS code's life is over, or too many wrong codes were given.
	ErrOTPExpired = refusal("otp-expired", "SMS code expired")
	// ErrOTPWrong means the SMS code is not the one sent (see OTPWrongError).
	ErrOTPWrong = refusal("otp-wrong", "SMS code could not be verified")
	// ErrSMSNotSent means the SMS gateway could not send the code.
	ErrSMSNotSent = refusal("sms-not-sent", "SMS code could not be sent")
	// ErrResendTooSoon means a new code was asked for less than OTPResendInterval after the last.
	ErrResendTooSoon = errors.New("a new SMS code may be sent once a minute")
	// ErrAttachCodeCap means attach sent as many SMS codes today as a daily cap allows (see
	// AttachCodeCapError).
	ErrAttachCodeCap = errors.New("daily limit of SMS codes reached")
	// ErrCardOrderNotFound means no card order of the partner has that id.
	ErrCardOrderNotFound = refusal("card-order-not-found", "card order not found")
)

// The SMS code rules (DESIGN.md §8.5).
const (
	OTPAttempts       = 3
	OTPResendInterval = 60 * time.Second
	DefaultOTPTTL     = 3 * time.Minute
)

// AttachCodeCaps are the most SMS codes attach sends in one Tashkent day: per card (by PAN,
// whichever partner attaches it), per phone number (likewise) and per partner. A code takes
// OTPAttempts guesses, so the caps bound a guesser's tries on one card, and the SMS a client
// receives, to a few a day however the resends are spaced.
type AttachCodeCaps struct {
	PerCard, PerPhone, PerPartner int
}

// DefaultAttachCodeCaps: a client who mistypes or waits for a late SMS gets a few codes a day
// per card and can attach two cards to one phone; a partner attaches thousands of cards a day.
var DefaultAttachCodeCaps = AttachCodeCaps{PerCard: 5, PerPhone: 10, PerPartner: 10_000}

// CodeCapScope is what a daily cap on attach codes counts.
type CodeCapScope struct{ s string }

// The scopes, in the order a new code is counted: the narrowest cap reached is the one named.
var (
	CodeCapCard    = CodeCapScope{"card"}
	CodeCapPhone   = CodeCapScope{"phone"}
	CodeCapPartner = CodeCapScope{"partner"}
)

// String is the scope's name: card, phone or partner.
func (s CodeCapScope) String() string { return s.s }

// IsZero reports whether the scope is unset.
func (s CodeCapScope) IsZero() bool { return s.s == "" }

// CodeCap is one daily cap: what it counts and how many codes a day.
type CodeCap struct {
	Scope CodeCapScope
	Limit int
}

// Caps lists the caps in the order a new code is counted; a cap not set (0) takes its default.
func (c AttachCodeCaps) Caps() []CodeCap {
	orDefault := func(n, def int) int {
		if n <= 0 {
			return def
		}
		return n
	}
	d := DefaultAttachCodeCaps
	return []CodeCap{{CodeCapCard, orDefault(c.PerCard, d.PerCard)}, {CodeCapPhone, orDefault(c.PerPhone, d.PerPhone)},
		{CodeCapPartner, orDefault(c.PerPartner, d.PerPartner)}}
}

// CodeCapDay is the Tashkent business date a code sent at now counts on, and the instant the
// next day begins, when the caps reset.
func CodeCapDay(now time.Time) (day, resets time.Time) {
	day = BusinessDate(now)
	_, resets = BusinessDay(day)
	return day, resets
}

// AttachCodeCapError is an attach refused because the code would pass a daily cap; it matches
// ErrAttachCodeCap and tells the partner which cap and when it resets.
type AttachCodeCapError struct {
	Cap      CodeCap
	ResetsAt time.Time
}

func (e AttachCodeCapError) Error() string {
	what := map[CodeCapScope]string{CodeCapCard: "this card (PAN)", CodeCapPhone: "this phone number",
		CodeCapPartner: "this partner's attaches"}[e.Cap.Scope]
	return fmt.Sprintf("%s: %s had %d SMS codes today, the most a day (the %s cap); more after %s (midnight in Tashkent)",
		ErrAttachCodeCap, what, e.Cap.Limit, e.Cap.Scope, e.ResetsAt.In(Tashkent).Format(time.RFC3339))
}

// Is makes AttachCodeCapError match ErrAttachCodeCap.
func (e AttachCodeCapError) Is(target error) bool { return target == ErrAttachCodeCap }

// OTPWrongError is a wrong SMS code with the attempts left; it matches ErrOTPWrong.
type OTPWrongError struct{ Left int }

func (e OTPWrongError) Error() string {
	return fmt.Sprintf("SMS code could not be verified: wrong code, %d attempts left", e.Left)
}

// Is makes OTPWrongError match ErrOTPWrong.
func (e OTPWrongError) Is(target error) bool { return target == ErrOTPWrong }

// ParseOTP accepts a 6-digit SMS code.
func ParseOTP(s string) (string, error) {
	if len(s) != 6 || !isDigits(s) {
		return "", errors.New("must be 6 digits")
	}
	return s, nil
}

// Expiry is a card's expiry month, written yyMM.
type Expiry struct{ year, month int }

// ParseExpiry accepts yyMM: a real month (01–12) that has not ended by today.
func ParseExpiry(s string, today time.Time) (Expiry, error) {
	if len(s) != 4 || !isDigits(s) {
		return Expiry{}, errors.New("must be yyMM: 4 digits")
	}
	yy, _ := strconv.Atoi(s[:2])
	mm, _ := strconv.Atoi(s[2:])
	if mm < 1 || mm > 12 {
		return Expiry{}, errors.New("must be yyMM with a month from 01 to 12")
	}
	e := Expiry{year: 2000 + yy, month: mm}
	if e.LastDay().Before(BusinessDate(today)) {
		return Expiry{}, errors.New("must not be in the past")
	}
	return e, nil
}

// ExpiryOf returns the expiry month of a date.
func ExpiryOf(t time.Time) Expiry { return Expiry{year: t.Year(), month: int(t.Month())} }

// LastDay is the last date the card is valid (midnight UTC of the date).
func (e Expiry) LastDay() time.Time {
	return time.Date(e.year, time.Month(e.month)+1, 0, 0, 0, 0, 0, time.UTC)
}

// String returns yyMM.
func (e Expiry) String() string {
	if e.month == 0 {
		return ""
	}
	return fmt.Sprintf("%02d%02d", e.year%100, e.month)
}

// CardStatus is where a card is.
type CardStatus struct{ s string }

// The card statuses (interface.md 3.4).
var (
	CardActive     = CardStatus{"ACTIVE"}
	CardBlocked    = CardStatus{"BLOCKED"}
	CardUnverified = CardStatus{"UNVERIFIED"}
	CardDeleted    = CardStatus{"DELETED"}
	CardClosed     = CardStatus{"CLOSED"}
)

// ParseCardStatus accepts one of the five statuses.
func ParseCardStatus(s string) (CardStatus, error) {
	st, err := parseEnum(s, []CardStatus{CardActive, CardBlocked, CardUnverified, CardDeleted, CardClosed})
	if err != nil {
		return CardStatus{}, errors.New("must be one of ACTIVE, BLOCKED, UNVERIFIED, DELETED, CLOSED")
	}
	return st, nil
}

// String returns the name.
func (s CardStatus) String() string { return s.s }

// MarshalText writes the name, so a stored outcome keeps the status.
func (s CardStatus) MarshalText() ([]byte, error) { return []byte(s.s), nil }

// UnmarshalText reads a name MarshalText wrote.
func (s *CardStatus) UnmarshalText(b []byte) error {
	st, err := ParseCardStatus(string(b))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// cardTransitions is the status change table (DESIGN.md §8.5): UNVERIFIED → ACTIVE only by
// attach confirm; the same status again is a no-op, handled before the table.
var cardTransitions = map[CardStatus][]CardStatus{
	CardActive:     {CardBlocked, CardClosed, CardDeleted},
	CardBlocked:    {CardActive, CardClosed, CardDeleted},
	CardUnverified: {CardClosed, CardDeleted},
	CardClosed:     {CardDeleted},
	CardDeleted:    {},
}

// CardOrigin tells how a card came to tiyin.
type CardOrigin struct{ s string }

// Cards are issued through tiyin (a card order) or attached (issued by any bank).
var (
	CardIssued   = CardOrigin{"ISSUED"}
	CardAttached = CardOrigin{"ATTACHED"}
)

// ParseCardOrigin reads a stored origin.
func ParseCardOrigin(s string) (CardOrigin, error) {
	return parseEnum(s, []CardOrigin{CardIssued, CardAttached})
}

// String returns the name.
func (o CardOrigin) String() string { return o.s }

// Card is a payment card of a partner's client. tiyin keeps the network's token and the masked
// number, never the full PAN; attached cards also keep a keyed hash of the PAN so that a second
// attach of the same card finds the first.
type Card struct {
	id, partnerID uuid.UUID
	origin        CardOrigin
	network       Network
	maskedPAN     string
	panHash       []byte
	expiry        Expiry
	phone         Phone
	pinfl         string // issued cards: the client, whose next order replaces the card
	networkRef    string // attached cards: the network's reference from the lookup, for tokenising
	token         string
	status        CardStatus
	reason        string
	otpHash       []byte
	otpSentAt     time.Time
	otpExpiresAt  time.Time
	otpAttempts   int
	// codeAcceptedAt is when the right SMS code was given; the card is being tokenised by the
	// network, and turns ACTIVE with the token.
	codeAcceptedAt time.Time
	createdAt      time.Time
	updatedAt      time.Time
	events
}

// NewAttachedCardParams are an attach's inputs; the caller made the code and hashed it.
type NewAttachedCardParams struct {
	ID, PartnerID uuid.UUID
	PAN           PAN
	PANHash       []byte
	Expiry        Expiry
	Network       Network
	Phone         Phone
	NetworkRef    string
	OTPHash       []byte
	OTPTTL        time.Duration
	Now           time.Time
}

// NewAttachedCard registers a card being attached: UNVERIFIED until its SMS code is confirmed.
func NewAttachedCard(p NewAttachedCardParams) *Card {
	c := &Card{id: p.ID, partnerID: p.PartnerID, origin: CardAttached, network: p.Network, maskedPAN: p.PAN.Masked(),
		panHash: p.PANHash, expiry: p.Expiry, phone: p.Phone, networkRef: p.NetworkRef, status: CardUnverified,
		reason: "waiting for the SMS code", createdAt: p.Now}
	c.setOTP(p.OTPHash, p.OTPTTL, p.Now)
	return c
}

func (c *Card) setOTP(hash []byte, ttl time.Duration, now time.Time) {
	c.otpHash, c.otpSentAt, c.otpExpiresAt, c.otpAttempts, c.updatedAt = hash, now, now.Add(ttl), 0, now
}

// Resend replaces the SMS code of a card still UNVERIFIED: the old code is void and the
// attempts start again, at most once per OTPResendInterval.
func (c *Card) Resend(networkRef string, hash []byte, ttl time.Duration, now time.Time) error {
	if err := c.awaitingCode(); err != nil {
		return err
	}
	if now.Sub(c.otpSentAt) < OTPResendInterval {
		return ErrResendTooSoon
	}
	c.networkRef = networkRef
	c.setOTP(hash, ttl, now)
	return nil
}

// Confirm checks the SMS code's hash at now. A wrong code counts an attempt (the caller must
// store the card even then); after OTPAttempts wrong codes, or once the code's life is over,
// every code is ErrOTPExpired.
//
// The right code is used up: the card waits for the network's token (Activate).
func (c *Card) Confirm(hash []byte, now time.Time) error {
	if err := c.awaitingCode(); err != nil {
		return err
	}
	switch {
	case c.otpAttempts >= OTPAttempts:
		return fmt.Errorf("%w: too many wrong codes; attach again for a new one", ErrOTPExpired)
	case !now.Before(c.otpExpiresAt):
		return fmt.Errorf("%w: attach again for a new one", ErrOTPExpired)
	case subtle.ConstantTimeCompare(hash, c.otpHash) != 1:
		c.otpAttempts++
		c.updatedAt = now
		return OTPWrongError{Left: OTPAttempts - c.otpAttempts}
	}
	c.otpHash, c.codeAcceptedAt, c.updatedAt = nil, now, now
	return nil
}

// awaitingCode refuses a card that does not wait for an SMS code: one attached already, one
// whose code was accepted (being activated), or one in another status.
func (c *Card) awaitingCode() error {
	switch {
	case c.status == CardActive || c.status == CardBlocked:
		return fmt.Errorf("%w: the card is %s", ErrCardAttached, c.status)
	case c.status != CardUnverified:
		return fmt.Errorf("%w: the card is %s", ErrCardStatus, c.status)
	case !c.codeAcceptedAt.IsZero():
		return fmt.Errorf("%w: its code was accepted and the card is being activated", ErrCardAttached)
	}
	return nil
}

// CodeAccepted reports whether the card's SMS code was accepted and it waits for its token.
func (c *Card) CodeAccepted() bool { return c.status == CardUnverified && !c.codeAcceptedAt.IsZero() }

// RenewOTP gives a card that waits for its code a new one at once (the old one void, the
// attempts reset): for the same attach run again after it stopped before its code was sent.
func (c *Card) RenewOTP(hash []byte, ttl time.Duration, now time.Time) error {
	if err := c.awaitingCode(); err != nil {
		return err
	}
	c.setOTP(hash, ttl, now)
	return nil
}

// VoidOTP voids a code that could not be sent: no code opens the card, and an attach may send
// a new one at once.
func (c *Card) VoidOTP(now time.Time) {
	c.otpHash, c.otpSentAt, c.otpExpiresAt, c.updatedAt = nil, time.Time{}, time.Time{}, now
}

// Activate records the network's token after an accepted code: the card is ACTIVE.
func (c *Card) Activate(token string, now time.Time) error {
	if !c.CodeAccepted() {
		return fmt.Errorf("%w: the card is %s without an accepted code", ErrCardStatus, c.status)
	}
	c.token, c.status, c.reason, c.otpHash, c.codeAcceptedAt, c.updatedAt = token, CardActive, "attached", nil, time.Time{}, now
	c.record(c.partnerID, now, CardAttachment{CardID: c.id, Network: c.network, MaskedPAN: c.maskedPAN})
	return nil
}

// ChangeStatus moves the card to status `to` by the transition table. The same status again
// is a no-op (changed false).
func (c *Card) ChangeStatus(to CardStatus, reason string, now time.Time) (changed bool, err error) {
	if to == c.status {
		return false, nil
	}
	for _, allowed := range cardTransitions[c.status] {
		if allowed == to {
			c.status, c.reason, c.updatedAt = to, reason, now
			return true, nil
		}
	}
	return false, fmt.Errorf("%w: %s → %s", ErrCardStatus, c.status, to)
}

// CardState is every stored field of a card, for repositories only.
type CardState struct {
	ID, PartnerID           uuid.UUID
	Origin                  CardOrigin
	Network                 Network
	MaskedPAN               string
	PANHash                 []byte
	Expiry                  Expiry
	Phone                   Phone
	PINFL                   string
	NetworkRef, Token       string
	Status                  CardStatus
	Reason                  string
	OTPHash                 []byte
	OTPSentAt, OTPExpiresAt time.Time
	OTPAttempts             int
	CodeAcceptedAt          time.Time
	CreatedAt, UpdatedAt    time.Time
}

// RestoreCard rebuilds a card from storage. Only repositories may call it.
func RestoreCard(s CardState) *Card {
	return &Card{id: s.ID, partnerID: s.PartnerID, origin: s.Origin, network: s.Network, maskedPAN: s.MaskedPAN,
		panHash: s.PANHash, expiry: s.Expiry, phone: s.Phone, pinfl: s.PINFL, networkRef: s.NetworkRef, token: s.Token,
		status: s.Status, reason: s.Reason, otpHash: s.OTPHash, otpSentAt: s.OTPSentAt, otpExpiresAt: s.OTPExpiresAt,
		otpAttempts: s.OTPAttempts, codeAcceptedAt: s.CodeAcceptedAt, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt}
}

// State returns every field, for repositories to store.
func (c *Card) State() CardState {
	return CardState{ID: c.id, PartnerID: c.partnerID, Origin: c.origin, Network: c.network, MaskedPAN: c.maskedPAN,
		PANHash: c.panHash, Expiry: c.expiry, Phone: c.phone, PINFL: c.pinfl, NetworkRef: c.networkRef, Token: c.token,
		Status: c.status, Reason: c.reason, OTPHash: c.otpHash, OTPSentAt: c.otpSentAt, OTPExpiresAt: c.otpExpiresAt,
		OTPAttempts: c.otpAttempts, CodeAcceptedAt: c.codeAcceptedAt, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt}
}

// ID returns the card id (cardId).
func (c *Card) ID() uuid.UUID { return c.id }

// PartnerID returns the owning partner.
func (c *Card) PartnerID() uuid.UUID { return c.partnerID }

// Origin tells whether tiyin issued the card or it was attached.
func (c *Card) Origin() CardOrigin { return c.origin }

// Network returns the card's processing network.
func (c *Card) Network() Network { return c.network }

// MaskedPAN returns the card number as tiyin shows it: 860012******3456.
func (c *Card) MaskedPAN() string { return c.maskedPAN }

// Expiry returns the expiry month.
func (c *Card) Expiry() Expiry { return c.expiry }

// Token returns the network's token for the card, empty until attached.
func (c *Card) Token() string { return c.token }

// NetworkRef returns the network's reference from the attach lookup.
func (c *Card) NetworkRef() string { return c.networkRef }

// Status returns the card's status.
func (c *Card) Status() CardStatus { return c.status }

// Reason returns why the card has its status.
func (c *Card) Reason() string { return c.reason }

// CheckReason accepts a status change reason: 1 to 255 characters.
func CheckReason(s string) error {
	if n := len([]rune(strings.TrimSpace(s))); n < 1 || n > 255 {
		return errors.New("must be 1 to 255 characters")
	}
	return nil
}

// RestoreExpiry reads a stored yyMM; repositories only (no check against today).
func RestoreExpiry(s string) (Expiry, error) {
	return ParseExpiry(s, time.Time{})
}
