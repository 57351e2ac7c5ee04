package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrWebhookSignature means a webhook's Standard Webhooks signature does not verify with the
// secret, its headers are missing, or it was sent further from now than the tolerance.
var ErrWebhookSignature = errors.New("tiyin webhook: signature does not verify")

// WebhookTolerance is how far a webhook's timestamp may be from now: older deliveries are
// refused as replays.
const WebhookTolerance = 5 * time.Minute

// VerifyWebhook checks a delivery of tiyin's webhook as its receiver gets it: the raw body and
// the request's headers (webhook-id, webhook-timestamp, webhook-signature; the Standard
// Webhooks specification, https://www.standardwebhooks.com), with the partner's secret as
// tiyin printed it ("whsec_…"). It accepts the delivery when any v1 signature matches (while a
// replaced secret still signs, two are sent) and the timestamp is within WebhookTolerance of
// now. Any Standard Webhooks library verifies the same deliveries.
func VerifyWebhook(secret string, body []byte, headers http.Header, now time.Time) error {
	id, ts, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > WebhookTolerance {
		return ErrWebhookSignature
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return ErrWebhookSignature
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := []byte(base64.StdEncoding.EncodeToString(m.Sum(nil)))
	for _, s := range strings.Fields(sigs) {
		if v, sig, ok := strings.Cut(s, ","); ok && v == "v1" && hmac.Equal(want, []byte(sig)) {
			return nil
		}
	}
	return ErrWebhookSignature
}
