package application_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
	"github.com/tiyin/tiyin/test/testkit"
)

type webhookDeps struct {
	app      *application.App
	partners *mocks.MockPartnerRepository
	outbox   *mocks.MockEventOutbox
	sender   *mocks.MockWebhookSender
	partner  domain.Partner
	told     []ports.Failure
}

func (d *webhookDeps) Failure(_ context.Context, f ports.Failure) { d.told = append(d.told, f) }

func webhookSetup(t *testing.T, dataKey string) *webhookDeps {
	t.Helper()
	ctrl := gomock.NewController(t)
	clock := mocks.NewMockClock(ctrl)
	clock.EXPECT().Now(gomock.Any()).Return(t0).AnyTimes()
	clock.EXPECT().Ahead().Return(nil).AnyTimes()
	d := &webhookDeps{partners: mocks.NewMockPartnerRepository(ctrl), outbox: mocks.NewMockEventOutbox(ctrl),
		sender: mocks.NewMockWebhookSender(ctrl), partner: domain.Partner{ID: uuid.New(), Name: "acme"}}
	d.partners.EXPECT().Update(gomock.Any(), "acme", gomock.Any()).DoAndReturn(func(_ context.Context, _ string, fn func(*domain.Partner) error) error {
		return fn(&d.partner)
	}).AnyTimes()
	sealer, err := keyring.New([]byte(dataKey))
	if err != nil {
		t.Fatal(err)
	}
	d.outbox.EXPECT().Sequence(gomock.Any(), gomock.Any()).Return(0, nil).AnyTimes()
	uow := mocks.NewMockUnitOfWork(ctrl)
	uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).AnyTimes()
	d.app = testkit.App(t, testkit.Swap[ports.Clock](clock), testkit.Swap[ports.UnitOfWork](uow),
		testkit.Swap[ports.EventOutbox](d.outbox), testkit.Swap[ports.Sealer](sealer), testkit.Swap[ports.PartnerRepository](d.partners),
		testkit.Swap[ports.WebhookSender](d.sender), testkit.Swap[ports.OpsLog](d))
	return d
}

func TestSetWebhookKeepsTheSecretSealedAndDeliveryOpensIt(t *testing.T) {
	t.Parallel()
	d := webhookSetup(t, "key-1")
	secret, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: "https://partner.example/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	// whsec_ and the standard base64 of 32 random bytes, as Standard Webhooks makes them: not
	// 64 hex digits, which invited a hex decode of a key that is base64-decoded.
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+44 || err != nil || len(key) != 32 {
		t.Fatalf("secret %q: want whsec_ and the base64 of 32 bytes (%v)", secret, err)
	}
	if d.partner.WebhookURL != "https://partner.example/hooks" || d.partner.WebhookSecret == "" ||
		strings.Contains(d.partner.WebhookSecret, secret[6:]) {
		t.Fatalf("stored %q / %q", d.partner.WebhookURL, d.partner.WebhookSecret)
	}
	ev := ports.OutboundEvent{ID: uuid.New(), PartnerID: d.partner.ID, Type: "CARD_ATTACHED", Body: []byte(`{}`),
		CreatedAt: t0, URL: d.partner.WebhookURL, SealedSecret: d.partner.WebhookSecret}
	d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), t0, gomock.Any(), gomock.Any()).Return([]ports.OutboundEvent{ev}, nil)
	d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes() // later rounds find none
	d.sender.EXPECT().Send(gomock.Any(), ports.Webhook{URL: ev.URL, Secret: []byte(secret), EventID: ev.ID, Type: ev.Type, Body: ev.Body}).Return(nil)
	d.outbox.EXPECT().Settle(gomock.Any(), ev.ID, ports.EventOutcome{Attempts: 1, DeliveredAt: t0})
	rep, err := d.app.Partners.DeliverEvents.Handle(context.Background())
	if err != nil || rep.Delivered != 1 {
		t.Fatalf("report %+v, %v", rep, err)
	}

	again, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: "https://partner.example/hooks"})
	if err != nil || again == secret {
		t.Fatalf("setting the webhook again must make a new secret: %v", err)
	}
	if none, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme"}); err != nil || none != "" ||
		d.partner.WebhookURL != "" || d.partner.WebhookSecret != "" {
		t.Fatalf("remove: %q %v %+v", none, err, d.partner)
	}
}

func TestSetWebhookRefusesABadURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"partner.example/hooks", "ftp://partner.example/", "https://user:pw@partner.example/",
		"https:///path", "https://partner.example/#frag", "https://partner.example/" + strings.Repeat("a", 2000)} {
		d := webhookSetup(t, "key-1")
		if _, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: url}); !errors.Is(err, domain.ErrWebhookURL) {
			t.Errorf("%.40q: %v", url, err)
		}
		if d.partner.WebhookURL != "" {
			t.Errorf("%.40q stored", url)
		}
	}
}

func TestDeliveryOutcomes(t *testing.T) {
	t.Parallel()
	errDown := errors.New(`Post "http://127.0.0.1:9/h": webhook answered HTTP 503`)
	tests := []struct {
		name      string
		attempts  int
		createdAt time.Time
		noURL     bool
		otherKey  bool
		sendErr   error
		want      ports.EventOutcome
	}{
		{name: "delivered", want: ports.EventOutcome{Attempts: 1, DeliveredAt: t0}},
		{name: "first failure retries after a second", sendErr: errDown,
			want: ports.EventOutcome{Attempts: 1, NextAttemptAt: t0.Add(time.Second), Error: errDown.Error()}},
		{name: "third failure waits four seconds", attempts: 2, sendErr: errDown,
			want: ports.EventOutcome{Attempts: 3, NextAttemptAt: t0.Add(4 * time.Second), Error: errDown.Error()}},
		{name: "a day old: given up", attempts: 30, createdAt: t0.Add(-23*time.Hour - 30*time.Minute), sendErr: errDown,
			want: ports.EventOutcome{Attempts: 31, Error: errDown.Error()}},
		{name: "webhook removed: given up unsent", noURL: true,
			want: ports.EventOutcome{Attempts: 1, Error: "the partner removed its webhook"}},
		{name: "sealed under another data key: retried unsent", otherKey: true,
			want: ports.EventOutcome{Attempts: 1, NextAttemptAt: t0.Add(time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := webhookSetup(t, "key-1")
			if tt.otherKey {
				other := webhookSetup(t, "key-2")
				other.partner = d.partner
				if _, err := other.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: "http://127.0.0.1:9/h", AllowHTTP: true}); err != nil {
					t.Fatal(err)
				}
				d.partner = other.partner
			} else if _, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: "http://127.0.0.1:9/h", AllowHTTP: true}); err != nil {
				t.Fatal(err)
			}
			created := tt.createdAt
			if created.IsZero() {
				created = t0
			}
			ev := ports.OutboundEvent{ID: uuid.New(), Type: "X", Body: []byte(`{}`), CreatedAt: created, Attempts: tt.attempts,
				URL: d.partner.WebhookURL, SealedSecret: d.partner.WebhookSecret}
			if tt.noURL {
				ev.URL = ""
			}
			d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), t0, gomock.Any(), gomock.Any()).Return([]ports.OutboundEvent{ev}, nil)
			d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes() // later rounds find none
			if !tt.noURL && !tt.otherKey {
				d.sender.EXPECT().Send(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, _ ports.Webhook) error {
					if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > application.WebhookTimeout {
						t.Errorf("delivery without the %s timeout", application.WebhookTimeout)
					}
					return tt.sendErr
				})
			}
			var got ports.EventOutcome
			d.outbox.EXPECT().Settle(gomock.Any(), ev.ID, gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, o ports.EventOutcome) error {
				got = o
				return nil
			})
			if _, err := d.app.Partners.DeliverEvents.Handle(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tt.otherKey {
				if !strings.Contains(got.Error, "neither current nor retired") {
					t.Errorf("error %q does not say the key differs", got.Error)
				}
				got.Error = ""
			}
			if got != tt.want {
				t.Errorf("outcome %+v\nwant    %+v", got, tt.want)
			}
			// A failure is told with the webhook's host, never its path or query.
			switch {
			case !got.DeliveredAt.IsZero() || tt.noURL: // delivered, or the partner's choice
				if len(d.told) != 0 {
					t.Errorf("told %+v", d.told)
				}
			case len(d.told) != 1:
				t.Errorf("a failure told %+v", d.told)
			default:
				f, event := d.told[0], "webhook.failed"
				if got.NextAttemptAt.IsZero() {
					event = "webhook.given_up"
				}
				host := "127.0.0.1:9"
				if f.Event != event || f.Final != got.NextAttemptAt.IsZero() || f.Object != "event:"+ev.ID.String() || f.Detail != "X" ||
					f.Target != host || f.Attempt != got.Attempts || strings.Contains(f.Reason, "/h") {
					t.Errorf("told %+v", f)
				}
			}
		})
	}
}

func TestEventRetryAfterDoublesUpToAnHour(t *testing.T) {
	t.Parallel()
	for failures, want := range map[int]time.Duration{0: 0, 1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second,
		12: 2048 * time.Second, 13: time.Hour, 40: time.Hour} {
		if got := application.EventRetryAfter(failures); got != want {
			t.Errorf("after %d failures: %s, want %s", failures, got, want)
		}
	}
}

func TestOutsideTheSandboxAWebhookIsHTTPS(t *testing.T) {
	t.Parallel()
	d := webhookSetup(t, "key-1")
	if _, err := d.app.Partners.SetWebhook.Handle(context.Background(), application.SetWebhook{Name: "acme", URL: "http://partner.example/hooks"}); !errors.Is(err, application.ErrWebhookNotHTTPS) {
		t.Fatalf("http outside the sandbox: %v", err)
	}
	if d.partner.WebhookURL != "" {
		t.Fatalf("stored %q", d.partner.WebhookURL)
	}
}

// TestEventsAreListedFromTheLastThirtyDays: the list asks for the partner's events of the last
// 30 days on its own clock (one more than the page, to tell whether more follow), and the next
// page starts after the last one listed.
func TestEventsAreListedFromTheLastThirtyDays(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		stored  []ports.ListedEvent
		hasMore bool
	}{
		{[]ports.ListedEvent{{Sequence: 8}, {Sequence: 9}, {Sequence: 10}}, true},
		{[]ports.ListedEvent{{Sequence: 8}, {Sequence: 9}}, false},
	} {
		d := webhookSetup(t, "key-1")
		q := ports.EventQuery{PartnerID: d.partner.ID, AfterSequence: 7, Since: t0.AddDate(0, 0, -30), Types: []string{}, Limit: 3}
		d.outbox.EXPECT().List(gomock.Any(), q).Return(c.stored, nil)
		page, err := d.app.Partners.ListEvents.Handle(context.Background(), application.ListEvents{PartnerID: d.partner.ID, AfterSequence: 7, Limit: 2})
		if err != nil || page.NextSequence != 9 || len(page.Events) != 2 || page.HasMore != c.hasMore {
			t.Fatalf("%d stored: %+v %v", len(c.stored), page, err)
		}
	}
}

// TestAReplacedWebhookSecretSignsBesideTheNewOneForItsOverlap: setting a webhook again keeps
// the old secret for the overlap; a delivery within it carries both, one after it only the new.
func TestAReplacedWebhookSecretSignsBesideTheNewOneForItsOverlap(t *testing.T) {
	t.Parallel()
	d := webhookSetup(t, "key-1")
	ctx := context.Background()
	first, err := d.app.Partners.SetWebhook.Handle(ctx, application.SetWebhook{Name: "acme", URL: "https://partner.example/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.app.Partners.SetWebhook.Handle(ctx, application.SetWebhook{Name: "acme", URL: "https://partner.example/hooks",
		Overlap: domain.DefaultKeyOverlap})
	if err != nil {
		t.Fatal(err)
	}
	if d.partner.PreviousWebhookSecret == "" || !d.partner.PreviousWebhookSecretUntil.Equal(t0.Add(domain.DefaultKeyOverlap)) {
		t.Fatalf("the replaced secret is not kept for its overlap: %+v", d.partner)
	}
	for _, tt := range []struct {
		name  string
		until time.Time
		want  []byte
	}{
		{"within the overlap", t0.Add(time.Hour), []byte(first)},
		{"after it", t0, nil},
	} {
		ev := ports.OutboundEvent{ID: uuid.New(), PartnerID: d.partner.ID, Type: "CARD_ATTACHED", Body: []byte(`{}`), CreatedAt: t0,
			URL: d.partner.WebhookURL, SealedSecret: d.partner.WebhookSecret, PreviousSealedSecret: d.partner.PreviousWebhookSecret,
			PreviousUntil: tt.until}
		d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return([]ports.OutboundEvent{ev}, nil)
		d.sender.EXPECT().Send(gomock.Any(), ports.Webhook{URL: ev.URL, Secret: []byte(second), PreviousSecret: tt.want, EventID: ev.ID,
			Type: ev.Type, Body: ev.Body}).Return(nil)
		d.outbox.EXPECT().Settle(gomock.Any(), ev.ID, gomock.Any())
		d.outbox.EXPECT().ClaimDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
		if rep, err := d.app.Partners.DeliverEvents.Handle(ctx); err != nil || rep.Delivered != 1 {
			t.Fatalf("%s: %+v %v", tt.name, rep, err)
		}
	}
	if _, err := d.app.Partners.SetWebhook.Handle(ctx, application.SetWebhook{Name: "acme"}); err != nil ||
		d.partner.WebhookSecret != "" || d.partner.PreviousWebhookSecret != "" {
		t.Fatalf("removing the webhook keeps a secret: %+v %v", d.partner, err)
	}
}
