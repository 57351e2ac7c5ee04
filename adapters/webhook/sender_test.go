package webhook_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tiyin/tiyin/adapters/webhook"
	"github.com/tiyin/tiyin/client"
	"github.com/tiyin/tiyin/ports"
)

func TestSendSignsTheBodyAndReceiversVerifyIt(t *testing.T) {
	t.Parallel()
	secret := []byte("whsec_test")
	body := []byte(`{"id":"e1","type":"CARD_ATTACHED","createdAt":"2026-11-22T10:00:00+05:00","data":{}}`)
	id := uuid.New()
	got := make(chan *http.Request, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, b, r.Header.Get(webhook.SignatureHeader), time.Now(), 5*time.Minute); err != nil {
			t.Errorf("signature: %v", err)
		}
		if err := webhook.Verify([]byte("other"), b, r.Header.Get(webhook.SignatureHeader), time.Now(), 5*time.Minute); err == nil {
			t.Error("a signature verified under another secret")
		}
		if err := webhook.Verify(secret, append(b, ' '), r.Header.Get(webhook.SignatureHeader), time.Now(), 5*time.Minute); err == nil {
			t.Error("a signature verified for another body")
		}
		if err := webhook.Verify(secret, b, r.Header.Get(webhook.SignatureHeader), time.Now().Add(time.Hour), 5*time.Minute); err == nil {
			t.Error("an hour-old signature verified")
		}
		got <- r
	}))
	defer srv.Close()
	err := webhook.NewSender(webhook.Config{Sandbox: true}).Send(context.Background(), ports.Webhook{URL: srv.URL, Secret: secret, EventID: id, Type: "CARD_ATTACHED", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
		r.Header.Get("X-Tiyin-Event-Id") != id.String() || r.Header.Get("X-Tiyin-Event-Type") != "CARD_ATTACHED" {
		t.Fatalf("request %s %v", r.Method, r.Header)
	}
}

func TestSendFailsOnAnythingButA2xx(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"server error", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }},
		{"redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}},
		{"too slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := webhook.NewSender(webhook.Config{Sandbox: true}).Send(ctx, ports.Webhook{URL: srv.URL, Secret: []byte("s"), EventID: uuid.New(), Type: "X", Body: []byte(`{}`)})
			if err == nil {
				t.Fatal("delivery counted as acknowledged")
			}
		})
	}
	err := webhook.NewSender(webhook.Config{Sandbox: true}).Send(context.Background(), ports.Webhook{URL: "http://127.0.0.1:1/", Secret: []byte("s"), Body: []byte(`{}`)})
	if err == nil {
		t.Fatal("an unreachable webhook acknowledged")
	}
}

func TestVerifyRefusesMalformedHeaders(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "t=abc,v1=00", "v1=00", "t=1700000000", "garbage"} {
		if err := webhook.Verify([]byte("s"), []byte("{}"), h, time.Unix(1700000000, 0), time.Minute); !errors.Is(err, webhook.ErrBadSignature) {
			t.Errorf("%q: %v", h, err)
		}
	}
}

// TestOutsideTheSandboxWebhooksReachPublicHTTPSOnly: plain http, loopback, a private range,
// link-local (the cloud metadata service), a name that resolves to loopback, "this network",
// benchmarking and reserved ranges, IPv6 forms that embed an IPv4 address (NAT64, 6to4,
// IPv4-compatible) and the host's own addresses are refused before any byte is sent; in the
// sandbox, a receiver on loopback is reached.
func TestOutsideTheSandboxWebhooksReachPublicHTTPSOnly(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	strict := webhook.NewSender(webhook.Config{})
	for _, url := range []string{
		"http://" + strings.TrimPrefix(srv.URL, "https://"),
		srv.URL,
		"https://localhost:" + port + "/",
		"https://10.0.0.1:" + port + "/",
		"https://169.254.169.254/latest/meta-data/",
		"https://[::1]:" + port + "/",
		"https://100.64.0.1/",
		"https://0.1.2.3/",
		"https://198.18.0.1/",
		"https://[64:ff9b::7f00:1]:" + port + "/",
		"https://[::127.0.0.1]:" + port + "/",
		"https://[2002:7f00:1::1]/",
		"https://240.0.0.1/",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := strict.Send(ctx, ports.Webhook{URL: url, Secret: []byte("s"), EventID: uuid.New(), Type: "X", Body: []byte(`{}`)})
		cancel()
		if !errors.Is(err, webhook.ErrWebhookAddress) {
			t.Errorf("%s: %v, want ErrWebhookAddress", url, err)
		}
	}
	// The host's own addresses reach its own listeners, public or not.
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			ip, _, _ := net.ParseCIDR(a.String())
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err := strict.Send(ctx, ports.Webhook{URL: "https://" + net.JoinHostPort(ip.String(), port) + "/", Secret: []byte("s"),
				EventID: uuid.New(), Type: "X", Body: []byte(`{}`)})
			cancel()
			if !errors.Is(err, webhook.ErrWebhookAddress) {
				t.Errorf("the host's own address %s: %v, want ErrWebhookAddress", ip, err)
			}
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the receiver was reached %d times", hits.Load())
	}
	sandbox := webhook.NewSender(webhook.Config{Sandbox: true})
	sandboxHTTP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer sandboxHTTP.Close()
	if err := sandbox.Send(context.Background(), ports.Webhook{URL: sandboxHTTP.URL, Secret: []byte("s"), EventID: uuid.New(), Type: "X", Body: []byte(`{}`)}); err != nil || hits.Load() != 1 {
		t.Fatalf("sandbox to loopback: %v, hits %d", err, hits.Load())
	}
}

// TestOutsideTheSandboxSiteLocalIPv6IsRefused (issue 46, finding 7): fec0::/10, IPv6's old
// site-local range (deprecated by RFC 3879, still routed inside some networks), is no public
// address, from its first address to its last, though Go counts it as global unicast.
func TestOutsideTheSandboxSiteLocalIPv6IsRefused(t *testing.T) {
	t.Parallel()
	strict := webhook.NewSender(webhook.Config{})
	for _, ip := range []string{"fec0::1", "fed0:1:2::3", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"} {
		t.Run(ip, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := strict.Send(ctx, ports.Webhook{URL: "https://[" + ip + "]/", Secret: []byte("s"), EventID: uuid.New(), Type: "X", Body: []byte(`{}`)})
			if !errors.Is(err, webhook.ErrWebhookAddress) {
				t.Errorf("%v, want ErrWebhookAddress", err)
			}
		})
	}
}

// TestDuringAnOverlapBothSecretsVerify: a delivery signed with a new secret and the one it
// replaced verifies under either, and under no other.
func TestDuringAnOverlapBothSecretsVerify(t *testing.T) {
	t.Parallel()
	current, previous := []byte("whsec_new"), []byte("whsec_old")
	body := []byte(`{"id":"e1"}`)
	header := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { header <- r.Header.Get(webhook.SignatureHeader) }))
	defer srv.Close()
	if err := webhook.NewSender(webhook.Config{Sandbox: true}).Send(context.Background(), ports.Webhook{URL: srv.URL, Secret: current,
		PreviousSecret: previous, EventID: uuid.New(), Type: "CARD_ATTACHED", Body: body}); err != nil {
		t.Fatal(err)
	}
	h := <-header
	if strings.Count(h, "v1=") != 2 {
		t.Fatalf("header %q: want two v1 signatures", h)
	}
	for _, k := range [][]byte{current, previous} {
		if err := webhook.Verify(k, body, h, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := webhook.Verify([]byte("whsec_other"), body, h, time.Now(), 5*time.Minute); err == nil {
		t.Error("a third secret verified")
	}
}

// TestSecretsOfEitherFormSignAsTheyDid: the signatures of a fixed delivery under a secret of
// today's form (whsec_ and the base64 of 32 bytes) and of the older form (whsec_ and 64 hex
// digits, whose key is that text base64-decoded, 48 bytes) equal the ones computed outside Go
// (Python's hmac and openssl dgst, docs/integration.md's shell recipe): an older secret
// verifies exactly as before, and a hex decode of it, the mistake the older form invited,
// does not.
func TestSecretsOfEitherFormSignAsTheyDid(t *testing.T) {
	t.Parallel()
	const id = "019a8b7c-6d5e-7f40-8a1b-2c3d4e5f6a7b"
	body := []byte(`{"id":"e1","type":"TEST","data":{}}`)
	at := time.Unix(1795670130, 0)
	older := "whsec_" + strings.Repeat("0123456789abcdef", 4)
	for _, tt := range []struct{ secret, want string }{
		{"whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "v1,XgByfcp7vSV60HIWSiYP6qyyJEecp1oYa/EKY9mKL0Q="},
		{older, "v1,zlqu7vLIyssh9VAOtd0YOAQ7GRqHQxwRppIrpP8b1wA="},
	} {
		if got := webhook.StandardSignature(id, body, at, []byte(tt.secret)); got != tt.want {
			t.Errorf("%s…: webhook-signature %s, want %s", tt.secret[:12], got, tt.want)
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", "1795670130")
		h.Set("webhook-signature", tt.want)
		if err := client.VerifyWebhook(tt.secret, body, h, at); err != nil {
			t.Errorf("%s…: the client refuses the signature: %v", tt.secret[:12], err)
		}
	}
	if got := webhook.StandardSignature(id, body, at, []byte(older)); got == "v1,1Rph6PY2Ia5IJDHDloQvXzCyQAquHHrwwdLp9LOONYc=" {
		t.Error("an older secret signs under its hex-decoded key")
	}
	if got, want := webhook.Sign([]byte(older), body, at), "t=1795670130,v1=26bec9ccd68c8e3d3c52af946e7ab712d4796f746b3d8c67a0be363fb9db2975"; got != want {
		t.Errorf("X-Tiyin-Signature of an older secret: %s, want %s", got, want)
	}
}

// A delivery carries the Standard Webhooks headers, which the reference library verifies with
// the secret as tiyin prints it, and so does the Go client's VerifyWebhook; during an overlap
// both secrets verify, a third does not, and neither does another body or an old delivery.
func TestTheStandardWebhooksLibraryVerifiesADelivery(t *testing.T) {
	t.Parallel()
	current := "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" // as application.SetWebhook makes them
	previous := "whsec_" + strings.Repeat("fedcba9876543210", 4)    // as it made them before
	body := []byte(`{"id":"e1","type":"CARD_ATTACHED","data":{}}`)
	id := uuid.New()
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r.Header }))
	defer srv.Close()
	if err := webhook.NewSender(webhook.Config{Sandbox: true}).Send(context.Background(), ports.Webhook{URL: srv.URL, Secret: []byte(current),
		PreviousSecret: []byte(previous), EventID: id, Type: "CARD_ATTACHED", Body: body}); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.Get("webhook-id") != id.String() || h.Get("webhook-timestamp") == "" || strings.Count(h.Get("webhook-signature"), "v1,") != 2 {
		t.Fatalf("headers %v", h)
	}
	for _, secret := range []string{current, previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, h); err != nil {
			t.Errorf("the reference library refuses a delivery signed with %s…: %v", secret[:10], err)
		}
		if err := wh.Verify(append(body, ' '), h); err == nil {
			t.Error("the reference library verifies another body")
		}
		if err := client.VerifyWebhook(secret, body, h, time.Now()); err != nil {
			t.Errorf("the client refuses it: %v", err)
		}
	}
	other, _ := standardwebhooks.NewWebhook("whsec_" + strings.Repeat("00", 32))
	if err := other.Verify(body, h); err == nil {
		t.Error("a third secret verifies")
	}
	if err := client.VerifyWebhook(current, body, h, time.Now().Add(time.Hour)); !errors.Is(err, client.ErrWebhookSignature) {
		t.Errorf("an hour-old delivery: %v", err)
	}
	if err := client.VerifyWebhook("whsec_"+strings.Repeat("00", 32), body, h, time.Now()); !errors.Is(err, client.ErrWebhookSignature) {
		t.Errorf("a third secret with the client: %v", err)
	}
}
