package application_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

func attachCmd(t *testing.T, d *deps) application.AttachCard {
	t.Helper()
	pan, _ := domain.ParsePAN("8600123456789012")
	exp, _ := domain.ParseExpiry("3012", t0)
	phone, _ := domain.ParsePhone("998901234567")
	return application.AttachCard{PartnerID: d.partner, PAN: pan, Expiry: exp, Network: domain.NetworkUzcard, Phone: phone}
}

// attachCard is the attach use case on the ports it names, and no other.
func (d *deps) attachCard() *application.AttachCardHandler {
	return application.NewAttachCardHandler(d.clock, d.uow, d.requests, d.cards, d.cardRepo, d.codes, d.sms, testSealer,
		application.Config{OTPTTL: domain.DefaultOTPTTL, AttachCodeCaps: domain.AttachCodeCaps{PerCard: 5, PerPhone: 10, PerPartner: 100}})
}

func TestAttachRefusedByTheNetworkStoresNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	d.cards.EXPECT().LookupCard(gomock.Any(), gomock.Any()).Return("", domain.ErrCardRejected)
	if _, err := run(d, d.attachCard().Handle, attachCmd(t, d)); !errors.Is(err, domain.ErrCardRejected) || d.committed != 0 {
		t.Fatalf("err %v, commits %d", err, d.committed)
	}
}

// TestAttachWhoseSMSFails: the card and its code's hash are stored (with the request's claim)
// before the SMS gateway is called, outside any transaction. A refusal voids the code and is
// the answer (1006); an unknown outcome is code 10, the claim left unanswered for a retry of
// the same id to resume.
func TestAttachWhoseSMSFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sendErr error
		want    error
		voided  bool
		answers []int
	}{
		{"the gateway refuses: 1006", fmt.Errorf("%w: number barred", domain.ErrSMSNotSent), domain.ErrSMSNotSent, true, []int{1000}},
		{"the gateway is down: code 10, retry", fmt.Errorf("%w: operator down", ports.ErrGatewayTransient), ports.ErrUnavailable, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			d.cards.EXPECT().LookupCard(gomock.Any(), gomock.Any()).Return("REF", nil)
			d.cardRepo.EXPECT().FindLive(gomock.Any(), d.partner, gomock.Any()).Return(nil, domain.ErrCardNotFound)
			var stored *domain.Card
			d.cardRepo.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c *domain.Card) error { stored = c; return nil })
			d.codes.EXPECT().Take(gomock.Any(), gomock.Any()).Return(true, nil).Times(3)
			d.sms.EXPECT().Send(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, m ports.SMS) error {
				if len(m.Code) != 6 || m.Card != "860012******9012" {
					t.Errorf("message %+v", m)
				}
				if stored == nil || d.committed != 1 {
					t.Errorf("the SMS was sent before the card and its code were committed (%d commits)", d.committed)
				}
				return tt.sendErr
			})
			var voided *domain.Card
			if tt.voided { // the caps count codes sent: the refused one is given back to each
				d.codes.EXPECT().GiveBack(gomock.Any(), gomock.Any()).Return(nil).Times(3)
				d.cardRepo.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Card) error) error {
					voided = domain.RestoreCard(stored.State())
					return fn(voided)
				})
			}
			_, err := run(d, d.attachCard().Handle, attachCmd(t, d))
			if !errors.Is(err, tt.want) || stored == nil {
				t.Fatalf("err %v, stored %v", err, stored != nil)
			}
			if errors.Is(tt.want, ports.ErrUnavailable) && errors.Is(err, domain.ErrSMSNotSent) {
				t.Fatal("a transient failure answered as a refusal (1006 is stored and replayed)")
			}
			if st := stored.State(); st.Status != domain.CardUnverified || len(st.OTPHash) != 32 || st.Token != "" {
				t.Fatalf("card %+v", st)
			}
			if tt.voided && (voided == nil || voided.State().OTPHash != nil) {
				t.Fatalf("a code that could not be sent is not void: %+v", voided)
			}
			if got := d.requests.answered(); len(got) != len(tt.answers) || (len(got) > 0 && got[0] != tt.answers[0]) {
				t.Fatalf("answers stored %v, want %v", got, tt.answers)
			}
		})
	}
}

// TestAttachCountsEachCodeAgainstTheDailyCaps (issue 46, finding 4): the new code is counted
// per card, phone and partner, in that order, on the Tashkent day of the partner's clock, in
// the transaction that stores it, by the PAN's and the phone's hashes (never the numbers).
// The first cap reached refuses the attach with code 7's error naming it and when it resets:
// the transaction rolls back, no SMS is sent and no answer is stored, so a retry of the same
// id may send the code tomorrow.
func TestAttachCountsEachCodeAgainstTheDailyCaps(t *testing.T) {
	t.Parallel()
	caps := []domain.CodeCap{{Scope: domain.CodeCapCard, Limit: 5}, {Scope: domain.CodeCapPhone, Limit: 10}, {Scope: domain.CodeCapPartner, Limit: 100}}
	for _, tt := range []struct {
		name string
		full int // the index of the cap reached, -1 for none
	}{
		{"every cap has room: the code is sent", -1},
		{"the card's cap is reached", 0},
		{"the phone's cap is reached", 1},
		{"the partner's cap is reached", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			d.cards.EXPECT().LookupCard(gomock.Any(), gomock.Any()).Return("REF", nil)
			d.cardRepo.EXPECT().FindLive(gomock.Any(), d.partner, gomock.Any()).Return(nil, domain.ErrCardNotFound)
			d.cardRepo.EXPECT().Create(gomock.Any(), gomock.Any()).Return(nil)
			var counted []ports.CodeCount
			d.codes.EXPECT().Take(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c ports.CodeCount) (bool, error) {
				if !d.inTx {
					t.Error("a code counted outside the transaction that stores it")
				}
				counted = append(counted, c)
				return len(counted)-1 != tt.full, nil
			}).MinTimes(1)
			if tt.full < 0 {
				d.sms.EXPECT().Send(gomock.Any(), gomock.Any()).Return(nil)
			}
			_, err := run(d, d.attachCard().Handle, attachCmd(t, d))
			if tt.full < 0 {
				if err != nil || d.committed != 2 || len(counted) != 3 {
					t.Fatalf("err %v, commits %d, counted %d", err, d.committed, len(counted))
				}
			} else {
				var capErr domain.AttachCodeCapError
				if !errors.As(err, &capErr) || capErr.Cap != caps[tt.full] || !capErr.ResetsAt.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, domain.Tashkent)) {
					t.Fatalf("err %v, want the %s cap resetting at midnight", err, caps[tt.full].Scope)
				}
				if d.committed != 0 || len(d.requests.answered()) != 0 || len(counted) != tt.full+1 {
					t.Fatalf("commits %d, answers %v, counted %d: a refusal keeps nothing", d.committed, d.requests.answered(), len(counted))
				}
			}
			for i, c := range counted {
				if c.Scope != caps[i].Scope || c.Limit != caps[i].Limit || !c.Day.Equal(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("count %d: %+v, want %+v on 2026-11-22", i, c, caps[i])
				}
				if c.Key == "" || strings.Contains(c.Key, "8600123456789012") || strings.Contains(c.Key, "998901234567") {
					t.Errorf("count %d keyed %q: a card and a phone are counted by their hashes", i, c.Key)
				}
			}
		})
	}
}

func TestConfirmKeepsAWrongAttempt(t *testing.T) {
	t.Parallel()
	d := setup(t)
	phone, _ := domain.ParsePhone("998901234567")
	card := domain.NewAttachedCard(domain.NewAttachedCardParams{ID: uuid.New(), PartnerID: d.partner, Network: domain.NetworkUzcard,
		Phone: phone, OTPHash: []byte("not the hash of any code"), OTPTTL: domain.DefaultOTPTTL, Now: t0})
	var saved *domain.Card
	d.cardRepo.EXPECT().Update(gomock.Any(), card.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Card) error) error {
		c := domain.RestoreCard(card.State())
		if err := fn(c); err != nil {
			return err
		}
		saved = c
		return nil
	})
	err := runErr(d, (&application.ConfirmCardHandler{Clock: d.clock, Processing: d.cards, Cards: d.cardRepo, Sealer: testSealer, Requests: application.Requests{UoW: d.uow, Store: d.requests}}).Handle, application.ConfirmCard{PartnerID: d.partner, CardID: card.ID(), Code: "123456"})
	if !errors.Is(err, domain.ErrOTPWrong) || saved == nil || saved.State().OTPAttempts != 1 {
		t.Fatalf("err %v, saved %v", err, saved != nil)
	}
	if got := d.requests.answered(); len(got) != 1 || got[0] != 1000 {
		t.Fatalf("answers %v: the refusal must be stored with the attempt", got)
	}
}

// TestNetworkIsToldOfChangesToIssuedCardsOnly: blocks and closes of a card issued through
// tiyin go to the processing network; an attached card's change is tiyin's own.
func TestNetworkIsToldOfChangesToIssuedCardsOnly(t *testing.T) {
	t.Parallel()
	phone, _ := domain.ParsePhone("998901234567")
	for _, origin := range []domain.CardOrigin{domain.CardIssued, domain.CardAttached} {
		d := setup(t)
		card := domain.RestoreCard(domain.CardState{ID: uuid.New(), PartnerID: d.partner, Origin: origin, Network: domain.NetworkUzcard,
			Phone: phone, Token: "TOK-1", Status: domain.CardActive})
		d.cardRepo.EXPECT().Get(gomock.Any(), card.ID()).DoAndReturn(func(context.Context, uuid.UUID) (*domain.Card, error) {
			return domain.RestoreCard(card.State()), nil
		}).Times(2)
		var updated *domain.Card
		d.cardRepo.EXPECT().Update(gomock.Any(), card.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Card) error) error {
			updated = domain.RestoreCard(card.State())
			return fn(updated)
		}).Times(2)
		if origin == domain.CardIssued {
			d.cards.EXPECT().SetCardState(gomock.Any(), "TOK-1", domain.CardBlocked).Return(nil)
		}
		for range 2 { // the second is a no-op: the network is told once at most
			c, err := run(d, (&application.ChangeCardStatusHandler{Clock: d.clock, Processing: d.cards, Cards: d.cardRepo, Requests: application.Requests{UoW: d.uow, Store: d.requests}}).Handle, application.ChangeCardStatus{PartnerID: d.partner,
				CardID: card.ID(), Status: domain.CardBlocked, Reason: "lost"})
			if err != nil || c.Status != domain.CardBlocked || updated.Status() != domain.CardBlocked {
				t.Fatalf("%s: %v", origin, err)
			}
			card = updated
		}
	}
}
