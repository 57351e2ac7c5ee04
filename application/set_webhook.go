package application

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/tiyin/tiyin/domain"
)

// SetWebhook sets or removes (URL empty) a partner's webhook.
type SetWebhook struct {
	Name string
	URL  string
}

// SetWebhookHandler sets webhooks (tiyin partner set-webhook).
type SetWebhookHandler struct {
	d   Deps
	cfg Config
}

// webhookSecretPrefix marks a webhook signing secret, so a leaked one is recognisable.
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
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		secret = webhookSecretPrefix + hex.EncodeToString(b)
		if sealed, err = h.d.Sealer.Seal([]byte(secret), ""); err != nil {
			return "", err
		}
	}
	err := h.d.Partners.Update(ctx, cmd.Name, func(p *domain.Partner) error {
		p.WebhookURL, p.WebhookSecret = url, sealed
		return nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}
