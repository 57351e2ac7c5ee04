package server

import (
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/webhook"
)

// TestSetWebhookHelpShowsTheHeadersSent: partner set-webhook --help names the Standard
// Webhooks headers every delivery carries (the sender's own names), how the signature is made
// and the key read, and the secret's form.
func TestSetWebhookHelpShowsTheHeadersSent(t *testing.T) {
	t.Parallel()
	help := setWebhookCmd(options{}).Long
	for _, want := range []string{
		webhook.HeaderID + ": ", webhook.HeaderTimestamp + ": ", webhook.HeaderSignature + ": v1,",
		`HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body)`,
		"base64-decoded", "never hex-decode", "whsec_ and the base64 of 32 random bytes", "standardwebhooks.com",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("set-webhook --help lacks %q:\n%s", want, help)
		}
	}
}
