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
	"strconv"
	"strings"
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

// Sender implements ports.WebhookSender with an HTTP client that follows no redirects: a
// webhook answers 2xx where it is registered, or the attempt failed.
type Sender struct {
	client *http.Client
	// now is the wall clock the signature's timestamp comes from: receivers compare it with
	// their own clock, so it is never the sandbox's moved one.
	now func() time.Time
}

// NewSender returns a sender; the caller's context bounds each delivery.
func NewSender() *Sender {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Sender{
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		now:    time.Now,
	}
}

// Send implements ports.WebhookSender.
func (s *Sender) Send(ctx context.Context, w ports.Webhook) error {
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
var Module = fx.Module("webhook", fx.Provide(fx.Annotate(NewSender, fx.As(new(ports.WebhookSender)))))

var _ ports.WebhookSender = (*Sender)(nil)
