package domain_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

var cardNow = time.Date(2026, 11, 22, 10, 0, 0, 0, domain.Tashkent)

func attachedCard(t *testing.T, code string) *domain.Card {
	t.Helper()
	pan, _ := domain.ParsePAN("8600123456789012")
	phone, _ := domain.ParsePhone("998901234567")
	exp, err := domain.ParseExpiry("2811", cardNow)
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewAttachedCard(domain.NewAttachedCardParams{ID: uuid.New(), PartnerID: uuid.New(), PAN: pan,
		PANHash: []byte("h"), Expiry: exp, Network: domain.NetworkUzcard, Phone: phone, NetworkRef: "REF",
		OTPHash: []byte(code), OTPTTL: domain.DefaultOTPTTL, Now: cardNow})
}

func withStatus(t *testing.T, s domain.CardStatus) *domain.Card {
	t.Helper()
	st := attachedCard(t, "111111").State()
	st.Status = s
	return domain.RestoreCard(st)
}

func TestCardStatusTransitions(t *testing.T) {
	t.Parallel()
	A, B, U, D, C := domain.CardActive, domain.CardBlocked, domain.CardUnverified, domain.CardDeleted, domain.CardClosed
	allowed := map[[2]domain.CardStatus]bool{
		{A, B}: true, {B, A}: true, {A, C}: true, {A, D}: true, {B, C}: true, {B, D}: true,
		{U, C}: true, {U, D}: true, {C, D}: true,
	}
	all := []domain.CardStatus{A, B, U, D, C}
	for _, from := range all {
		for _, to := range all {
			card := withStatus(t, from)
			changed, err := card.ChangeStatus(to, "asked", cardNow)
			switch {
			case from == to:
				if changed || err != nil || card.Status() != from {
					t.Errorf("%s → %s: the same status must be a no-op, got %v %v", from, to, changed, err)
				}
			case allowed[[2]domain.CardStatus{from, to}]:
				if !changed || err != nil || card.Status() != to || card.Reason() != "asked" {
					t.Errorf("%s → %s: refused: %v", from, to, err)
				}
			default:
				if !errors.Is(err, domain.ErrCardStatus) || card.Status() != from {
					t.Errorf("%s → %s: allowed, want ErrCardStatus (err %v)", from, to, err)
				}
			}
		}
	}
}

func TestSMSCodeRules(t *testing.T) {
	t.Parallel()
	t.Run("lives three minutes", func(t *testing.T) {
		if err := attachedCard(t, "123456").Confirm([]byte("123456"), cardNow.Add(2*time.Minute+59*time.Second)); err != nil {
			t.Fatalf("at 2:59: %v", err)
		}
		if err := attachedCard(t, "123456").Confirm([]byte("123456"), cardNow.Add(3*time.Minute+time.Second)); !errors.Is(err, domain.ErrOTPExpired) {
			t.Fatalf("at 3:01: %v", err)
		}
	})
	t.Run("three wrong codes, then expired", func(t *testing.T) {
		c := attachedCard(t, "123456")
		for left := 2; left >= 0; left-- {
			var wrong domain.OTPWrongError
			if err := c.Confirm([]byte("000000"), cardNow); !errors.As(err, &wrong) || wrong.Left != left || !errors.Is(err, domain.ErrOTPWrong) {
				t.Fatalf("want %d left, got %v", left, err)
			}
		}
		if err := c.Confirm([]byte("123456"), cardNow); !errors.Is(err, domain.ErrOTPExpired) {
			t.Fatalf("the right code after three wrong ones: %v", err)
		}
	})
	t.Run("resend at most once a minute, resets attempts", func(t *testing.T) {
		c := attachedCard(t, "123456")
		_ = c.Confirm([]byte("000000"), cardNow)
		if err := c.Resend("REF", []byte("654321"), domain.DefaultOTPTTL, cardNow.Add(59*time.Second)); !errors.Is(err, domain.ErrResendTooSoon) {
			t.Fatalf("after 59 s: %v", err)
		}
		if err := c.Resend("REF", []byte("654321"), domain.DefaultOTPTTL, cardNow.Add(60*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := c.Confirm([]byte("123456"), cardNow.Add(61*time.Second)); !errors.Is(err, domain.ErrOTPWrong) {
			t.Fatalf("the old code: %v", err)
		}
		if err := c.Confirm([]byte("654321"), cardNow.Add(62*time.Second)); err != nil {
			t.Fatalf("the new code: %v", err)
		}
	})
	t.Run("an accepted code is used up: the card waits for its token", func(t *testing.T) {
		c := attachedCard(t, "123456")
		if err := c.Activate("TOK", cardNow); !errors.Is(err, domain.ErrCardStatus) {
			t.Fatalf("activated without an accepted code: %v", err)
		}
		if err := c.Confirm([]byte("123456"), cardNow); err != nil || !c.CodeAccepted() {
			t.Fatalf("right code: %v, accepted %v", err, c.CodeAccepted())
		}
		if err := c.Confirm([]byte("123456"), cardNow); !errors.Is(err, domain.ErrCardAttached) {
			t.Fatalf("the code again: %v", err)
		}
		if err := c.Resend("REF", []byte("654321"), time.Minute, cardNow.Add(time.Hour)); !errors.Is(err, domain.ErrCardAttached) {
			t.Fatalf("a new code while being activated: %v", err)
		}
		if err := c.RenewOTP([]byte("654321"), time.Minute, cardNow); !errors.Is(err, domain.ErrCardAttached) {
			t.Fatalf("renewed while being activated: %v", err)
		}
		if err := c.Activate("TOK", cardNow); err != nil || c.Status() != domain.CardActive || c.CodeAccepted() {
			t.Fatalf("activate: %v, %s", err, c.Status())
		}
	})
	t.Run("a renewed code needs no wait; a voided one opens nothing", func(t *testing.T) {
		c := attachedCard(t, "123456")
		if err := c.RenewOTP([]byte("654321"), time.Minute, cardNow.Add(time.Second)); err != nil {
			t.Fatalf("renew at once: %v", err)
		}
		if err := c.Confirm([]byte("123456"), cardNow.Add(2*time.Second)); !errors.Is(err, domain.ErrOTPWrong) {
			t.Fatalf("the old code after a renewal: %v", err)
		}
		c.VoidOTP(cardNow.Add(3 * time.Second))
		if err := c.Confirm([]byte("654321"), cardNow.Add(4*time.Second)); err == nil {
			t.Fatal("a voided code opened the card")
		}
		if err := c.Resend("REF", []byte("111111"), time.Minute, cardNow.Add(5*time.Second)); err != nil {
			t.Fatalf("a new attach after a voided code must not wait: %v", err)
		}
	})
	t.Run("an attached card is not confirmed again", func(t *testing.T) {
		c := attachedCard(t, "123456")
		if err := c.Confirm([]byte("123456"), cardNow); err != nil {
			t.Fatal(err)
		}
		if err := c.Activate("TOK", cardNow); err != nil {
			t.Fatal(err)
		}
		if err := c.Confirm([]byte("123456"), cardNow); !errors.Is(err, domain.ErrCardAttached) {
			t.Fatalf("double confirm: %v", err)
		}
		if err := c.Resend("REF", nil, time.Minute, cardNow.Add(time.Hour)); !errors.Is(err, domain.ErrCardAttached) {
			t.Fatalf("attach an active card: %v", err)
		}
	})
}

func TestCardValues(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2613", "1301", "2510", "261", "26111", "ab12", "2600"} {
		if _, err := domain.ParseExpiry(s, cardNow); err == nil {
			t.Errorf("expiry %q accepted", s)
		}
	}
	for _, s := range []string{"2611", "2612", "3001"} {
		if e, err := domain.ParseExpiry(s, cardNow); err != nil || e.String() != s {
			t.Errorf("expiry %q: %v", s, err)
		}
	}
	for _, s := range []string{"12345", "1234567", "12a456", ""} {
		if _, err := domain.ParseOTP(s); err == nil {
			t.Errorf("code %q accepted", s)
		}
	}
	for _, s := range []string{"860012345678901", "86001234567890123", "8600 1234 5678 9012"} {
		if _, err := domain.ParsePAN(s); err == nil {
			t.Errorf("PAN %q accepted", s)
		}
	}
	if _, err := domain.ParseCardStatus("LOST"); err == nil {
		t.Error("status LOST accepted")
	}
	for _, s := range []string{"", "   ", strings.Repeat("x", 256)} {
		if domain.CheckReason(s) == nil {
			t.Errorf("reason %q accepted", s)
		}
	}
	if domain.CheckReason(strings.Repeat("ы", 255)) != nil {
		t.Error("a 255-character reason refused")
	}
}

// TestAttachCodeCaps (issue 46, finding 4): the caps are counted card, phone, partner, each
// unset one at its default; a code counts on its Tashkent day, which ends at midnight in
// Tashkent (19:00 UTC); a refusal names its cap and when it resets.
func TestAttachCodeCaps(t *testing.T) {
	t.Parallel()
	want := []domain.CodeCap{{Scope: domain.CodeCapCard, Limit: 5}, {Scope: domain.CodeCapPhone, Limit: 2}, {Scope: domain.CodeCapPartner, Limit: 10_000}}
	if got := (domain.AttachCodeCaps{PerPhone: 2}).Caps(); !slices.Equal(got, want) {
		t.Fatalf("caps %v, want %v", got, want)
	}
	for _, tt := range []struct {
		name       string
		now        time.Time
		day, reset string
	}{
		{"morning in Tashkent", time.Date(2026, 11, 22, 9, 0, 0, 0, domain.Tashkent), "2026-11-22", "2026-11-23T00:00:00+05:00"},
		{"the last second of the day", time.Date(2026, 11, 22, 23, 59, 59, 0, domain.Tashkent), "2026-11-22", "2026-11-23T00:00:00+05:00"},
		{"midnight starts the next day", time.Date(2026, 11, 23, 0, 0, 0, 0, domain.Tashkent), "2026-11-23", "2026-11-24T00:00:00+05:00"},
		{"20:00 UTC is already tomorrow in Tashkent", time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC), "2026-11-23", "2026-11-24T00:00:00+05:00"},
		{"the last day of the year", time.Date(2026, 12, 31, 12, 0, 0, 0, domain.Tashkent), "2026-12-31", "2027-01-01T00:00:00+05:00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			day, resets := domain.CodeCapDay(tt.now)
			if day.Format(time.DateOnly) != tt.day || resets.In(domain.Tashkent).Format(time.RFC3339) != tt.reset {
				t.Fatalf("day %s, resets %s; want %s, %s", day.Format(time.DateOnly), resets.In(domain.Tashkent).Format(time.RFC3339), tt.day, tt.reset)
			}
		})
	}
	_, resets := domain.CodeCapDay(cardNow)
	for _, c := range want {
		err := error(domain.AttachCodeCapError{Cap: c, ResetsAt: resets})
		if !errors.Is(err, domain.ErrAttachCodeCap) || !strings.Contains(err.Error(), "the "+c.Scope.String()+" cap") ||
			!strings.Contains(err.Error(), "2026-11-23T00:00:00+05:00") || !strings.Contains(err.Error(), strconv.Itoa(c.Limit)) {
			t.Errorf("%s cap: %q", c.Scope, err)
		}
	}
}
