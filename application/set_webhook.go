package application

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SetWebhook sets or removes (URL empty) a partner's webhook.
type SetWebhook struct {
	Name string
	URL  string
	// AllowHTTP accepts a plain-http URL (the sandbox); otherwise only https is.
	AllowHTTP bool
	// Overlap is how long the secret a new one replaces still signs deliveries beside it
	// (0: not at all; domain.DefaultKeyOverlap is what the console and the CLI offer first).
	Overlap time.Duration
}

// ErrWebhookNotHTTPS is a plain-http webhook URL outside the sandbox.
var ErrWebhookNotHTTPS = errors.New("outside the sandbox a webhook URL must be https")

// SetWebhookHandler sets webhooks (tiyin partner set-webhook).
type SetWebhookHandler struct {
	Clock    ports.Clock
	UoW      ports.UnitOfWork
	Partners ports.PartnerRepository
	Sealer   ports.Sealer
}

// webhookSecretPrefix marks a webhook signing secret, so a leaked one is recognisable. The
// secret is the prefix and the standard base64 of 32 random bytes, as Standard Webhooks makes
// them: the signing key is those bytes, what every Standard Webhooks library decodes. (Secrets
// made before were the prefix and 64 hex digits; their key is that text base64-decoded, as
// before, so they still verify.)
const webhookSecretPrefix = "whsec_"

// Handle stores the URL with a new signing secret and returns the secret, which is shown once:
// tiyin keeps it only sealed under the data key. Removing the webhook returns "".
func (h *SetWebhookHandler) Handle(ctx context.Context, cmd SetWebhook) (string, error) {
	var url, secret, sealed string
	if cmd.URL != "" {
		var err error
		if url, err = domain.ParseWebhookURL(cmd.URL); err != nil {
			return "", err
		}
		if !cmd.AllowHTTP && !strings.HasPrefix(url, "https://") {
			return "", ErrWebhookNotHTTPS
		}
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		secret = webhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
		if sealed, err = h.Sealer.Seal([]byte(secret), ""); err != nil {
			return "", err
		}
	}
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
			return p.SetWebhook(url, sealed, h.Clock.Now(uuid.Nil), cmd.Overlap)
		})
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}
