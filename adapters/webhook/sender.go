// Package webhook delivers partners' events to their webhooks over HTTP, signed with the
// partner's secret (DESIGN.md §11).
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>".
const SignatureHeader = "X-Tiyin-Signature"

// Sign returns the signature header's value for body sent at t.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature means a webhook's signature does not verify, or is older than allowed.
var ErrBadSignature = errors.New("webhook signature does not verify")

// Verify checks a signature header against the body, as a receiver does: the HMAC must match
// and the timestamp be within tolerance of now (which stops replays of old deliveries).
func Verify(secret, body []byte, header string, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %s is outside %s of now", ErrBadSignature, ts, tolerance)
	}
	want := Sign(secret, body, time.Unix(sec, 0))
	if !hmac.Equal([]byte(want), []byte("t="+ts+",v1="+sig)) {
		return ErrBadSignature
	}
	return nil
}

// Config says where webhooks may go.
type Config struct {
	// Sandbox allows http and any address (a partner's test receiver on loopback). Outside
	// it, a webhook is https, is reached without a proxy, and only at a public address: the
	// dialer refuses loopback, private, link-local (the cloud metadata service), shared and
	// unspecified addresses after DNS resolution, so a name that resolves, or re-resolves,
	// to one is refused too.
	Sandbox bool
}

// Sender implements ports.WebhookSender with an HTTP client that follows no redirects: a
// webhook answers 2xx where it is registered, or the attempt failed.
type Sender struct {
	cfg    Config
	client *http.Client
	// now is the wall clock the signature's timestamp comes from: receivers compare it with
	// their own clock, so it is never the sandbox's moved one.
	now func() time.Time
}

// NewSender returns a sender; the caller's context bounds each delivery.
func NewSender(cfg Config) *Sender {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	proxy := http.ProxyFromEnvironment
	if !cfg.Sandbox {
		dialer.Control = refusePrivate
		proxy = nil
	}
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Sender{
		cfg:    cfg,
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		now:    time.Now,
	}
}

// ErrWebhookAddress is a webhook outside the sandbox that is not https or not at a public
// address.
var ErrWebhookAddress = errors.New("webhook refused: outside the sandbox it must be https at a public address")

// refusePrivate is the dialer's check of the address a name resolved to.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrWebhookAddress, address)
	}
	ip := ap.Addr().Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || sharedAddresses.Contains(ip) {
		return fmt.Errorf("%w: %s is not public", ErrWebhookAddress, ip)
	}
	return nil
}

// sharedAddresses is the carrier-grade NAT range (RFC 6598), private in all but name.
var sharedAddresses = netip.MustParsePrefix("100.64.0.0/10")

// Send implements ports.WebhookSender.
func (s *Sender) Send(ctx context.Context, w ports.Webhook) error {
	if !s.cfg.Sandbox && !strings.HasPrefix(strings.ToLower(w.URL), "https://") {
		return fmt.Errorf("%w: %s", ErrWebhookAddress, "not https")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(w.Body))
	if err != nil {
		return fmt.Errorf("webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tiyin-webhooks/1")
	req.Header.Set("X-Tiyin-Event-Id", w.EventID.String())
	req.Header.Set("X-Tiyin-Event-Type", w.Type)
	req.Header.Set(SignatureHeader, Sign(w.Secret, w.Body, s.now()))
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook unreachable: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// Module provides the sender as ports.WebhookSender.
// It needs a Config.
var Module = fx.Module("webhook", fx.Provide(fx.Annotate(NewSender, fx.As(new(ports.WebhookSender)))))

var _ ports.WebhookSender = (*Sender)(nil)
