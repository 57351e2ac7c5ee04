package application_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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

func TestAttachRefusedByTheNetworkStoresNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	d.cards.EXPECT().LookupCard(gomock.Any(), gomock.Any()).Return("", domain.ErrCardRejected)
	if _, err := d.app.AttachCard.Handle(context.Background(), attachCmd(t, d)); !errors.Is(err, domain.ErrCardRejected) || d.committed != 0 {
		t.Fatalf("err %v, commits %d", err, d.committed)
	}
}

func TestAttachWhoseSMSFailsStoresNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sendErr error
		want    error
	}{
		{"the gateway refuses: 1006", fmt.Errorf("%w: number barred", domain.ErrSMSNotSent), domain.ErrSMSNotSent},
		{"the gateway is down: code 10, retry", fmt.Errorf("%w: operator down", ports.ErrGatewayTransient), ports.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			d.cards.EXPECT().LookupCard(gomock.Any(), gomock.Any()).Return("REF", nil)
			d.cardRepo.EXPECT().FindLive(gomock.Any(), d.partner, gomock.Any()).Return(nil, domain.ErrCardNotFound)
			var stored *domain.Card
			d.cardRepo.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, c *domain.Card) error { stored = c; return nil })
			d.sms.EXPECT().Send(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, m ports.SMS) error {
				if len(m.Code) != 6 || m.Card != "860012******9012" {
					t.Errorf("message %+v", m)
				}
				return tt.sendErr
			})
			_, err := d.app.AttachCard.Handle(context.Background(), attachCmd(t, d))
			if !errors.Is(err, tt.want) || d.committed != 0 || stored == nil {
				t.Fatalf("err %v, commits %d", err, d.committed)
			}
			if errors.Is(tt.want, ports.ErrUnavailable) && errors.Is(err, domain.ErrSMSNotSent) {
				t.Fatal("a transient failure answered as a refusal (1006 is stored and replayed)")
			}
			if st := stored.State(); st.Status != domain.CardUnverified || len(st.OTPHash) != 32 || st.Token != "" {
				t.Fatalf("card %+v", st)
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
	err := d.app.ConfirmCard.Handle(context.Background(), application.ConfirmCard{PartnerID: d.partner, CardID: card.ID(), Code: "123456"})
	if !errors.Is(err, domain.ErrOTPWrong) || saved == nil || saved.State().OTPAttempts != 1 || d.committed != 1 {
		t.Fatalf("err %v, saved %v, commits %d", err, saved != nil, d.committed)
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
		d.cardRepo.EXPECT().Update(gomock.Any(), card.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Card) error) error {
			return fn(domain.RestoreCard(card.State()))
		}).Times(2)
		if origin == domain.CardIssued {
			d.cards.EXPECT().SetCardState(gomock.Any(), "TOK-1", domain.CardBlocked).Return(nil)
		}
		for range 2 { // the second is a no-op: the network is told once at most
			c, err := d.app.ChangeCardStatus.Handle(context.Background(), application.ChangeCardStatus{PartnerID: d.partner,
				CardID: card.ID(), Status: domain.CardBlocked, Reason: "lost"})
			if err != nil || c.Status() != domain.CardBlocked {
				t.Fatalf("%s: %v", origin, err)
			}
			card = c
		}
	}
}
