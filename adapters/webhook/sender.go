// Package webhook delivers partners' events to their webhooks over HTTP, signed with the
// partner's secret (DESIGN.md §11).
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>";
// while a replaced secret still signs, a second v1 follows, made with it. It is deprecated in
// favour of the Standard Webhooks headers and sent beside them until 2027-06-30
// (docs/integration.md).
const SignatureHeader = "X-Tiyin-Signature"

// The Standard Webhooks headers (https://www.standardwebhooks.com): the event's id, the time
// sent in unix seconds, and "v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>"
// for each secret that signs, space-separated; the key is the secret's part after "whsec_",
// base64-decoded, as every Standard Webhooks library reads it.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// StandardSignature returns webhook-signature's value for the event id's body sent at t,
// with a v1 for each secret.
func StandardSignature(id string, body []byte, t time.Time, secrets ...[]byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		m := hmac.New(sha256.New, standardKey(s))
		m.Write([]byte(id + "." + ts + "."))
		m.Write(body)
		sigs[i] = "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	}
	return strings.Join(sigs, " ")
}

// standardKey is the HMAC key of a "whsec_…" secret in Standard Webhooks: the rest, base64-
// decoded (tiyin's secrets are 64 hex digits, which decode to 48 bytes).
func standardKey(secret []byte) []byte {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(string(secret), "whsec_"))
	if err != nil {
		return secret
	}
	return k
}

// Sign returns the signature header's value for body sent at t, with a v1 for each secret.
func Sign(secret, body []byte, t time.Time, more ...[]byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	out := "t=" + ts
	for _, k := range append([][]byte{secret}, more...) {
		out += ",v1=" + signature(k, ts, body)
	}
	return out
}

func signature(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature means a webhook's signature does not verify, or is older than allowed.
var ErrBadSignature = errors.New("webhook signature does not verify")

// Verify checks a signature header against the body, as a receiver does: one of its v1
// HMACs must match the secret, and the timestamp be within tolerance of now (which stops
// replays of old deliveries).
func Verify(secret, body []byte, header string, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %s is outside %s of now", ErrBadSignature, ts, tolerance)
	}
	want := []byte(signature(secret, ts, body))
	for _, sig := range sigs {
		if hmac.Equal(want, []byte(sig)) {
			return nil
		}
	}
	return ErrBadSignature
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
		dialer.Control = refuseNonPublic(ownAddresses())
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

// refuseNonPublic is the dialer's check of the address a name resolved to, at delivery time
// (a name that resolved to a public address when the webhook was set and to a private one
// now is refused too): only a global unicast address that is neither private, shared, special
// purpose, one that embeds an IPv4 address (NAT64, 6to4, IPv4-compatible), site-local, nor one
// of the host's own addresses (its public address reaches its own listeners).
func refuseNonPublic(own map[netip.Addr]bool) func(_, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrWebhookAddress, address)
		}
		ip := ap.Addr().Unmap()
		if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || own[ip] {
			return fmt.Errorf("%w: %s is not public", ErrWebhookAddress, ip)
		}
		for _, p := range notPublic {
			if p.Contains(ip) {
				return fmt.Errorf("%w: %s is not public (%s)", ErrWebhookAddress, ip, p)
			}
		}
		return nil
	}
}

// notPublic are the ranges a global unicast address may still fall in that are no place for a
// webhook (RFC 6890 and its successors): special purpose, documentation, benchmarking,
// reserved, IPv6 ranges that carry an IPv4 address a translator would reach, and IPv6's old
// site-local range.
var notPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // carrier-grade NAT (RFC 6598)
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"240.0.0.0/4",     // reserved
		"::/96",           // IPv4-compatible (::127.0.0.1)
		"64:ff9b::/96",    // NAT64
		"64:ff9b:1::/48",  // local NAT64
		"100::/64",        // discard
		"2001::/23",       // IETF protocol assignments (Teredo among them)
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4
		"fec0::/10",       // site-local (deprecated by RFC 3879, still routed inside some networks)
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// ownAddresses are the host's interface addresses when the sender starts.
func ownAddresses() map[netip.Addr]bool {
	own := map[netip.Addr]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return own
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			own[p.Addr().Unmap()] = true
		}
	}
	return own
}

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
	var previous [][]byte
	if len(w.PreviousSecret) > 0 {
		previous = append(previous, w.PreviousSecret)
	}
	now := s.now()
	req.Header.Set(HeaderID, w.EventID.String())
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, StandardSignature(w.EventID.String(), w.Body, now, append([][]byte{w.Secret}, previous...)...))
	req.Header.Set(SignatureHeader, Sign(w.Secret, w.Body, now, previous...))
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
