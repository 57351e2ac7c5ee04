package console

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The partner changes an admin makes, from the console or the command line.
const (
	PartnerCreate     = "create"
	PartnerDisable    = "disable"
	PartnerEnable     = "enable"
	PartnerRotateKey  = "rotate_key"
	PartnerSetWebhook = "set_webhook"
)

// PartnerAction is an admin's change to a partner.
type PartnerAction struct {
	Name   string
	Action string // PartnerCreate, PartnerDisable, PartnerEnable, PartnerRotateKey, PartnerSetWebhook
	// Overlap (rotate_key, set_webhook) is how long the replaced key keeps working, or the
	// replaced webhook secret keeps signing beside the new one; 0 stops it at once.
	Overlap time.Duration
	// URL (set_webhook) is where the partner's events go; empty removes the webhook.
	// AllowHTTP accepts a plain http:// URL (the sandbox).
	URL       string
	AllowHTTP bool
}

// PartnerChange is what a change made that is shown once: a created partner and its key, a
// rotated key and until when the old one works, a webhook's signing secret.
type PartnerChange struct {
	Partner       domain.Partner // create
	APIKey        string         // create, rotate_key
	OldKeyUntil   time.Time      // rotate_key; zero when the old key stopped at once
	WebhookSecret string         // set_webhook, unless removed
}

// PartnerHandler changes partners, each change in the audit log with who made it: an
// operator in the console, or CLIActor on the command line.
type PartnerHandler struct {
	UoW     ports.UnitOfWork
	Create  *application.CreatePartnerHandler
	Enabled *application.SetPartnerEnabledHandler
	Rotate  *application.RotatePartnerKeyHandler
	Webhook *application.SetWebhookHandler
	Audit   Audit
}

// Handle applies the change and its audit entry in one transaction.
func (h *PartnerHandler) Handle(ctx context.Context, who Actor, cmd PartnerAction) (PartnerChange, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return PartnerChange{}, err
	}
	var out PartnerChange
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		var (
			err    error
			detail string
		)
		switch cmd.Action {
		case PartnerCreate:
			var np application.NewPartner
			np, err = h.Create.Handle(ctx, application.CreatePartner{Name: cmd.Name})
			out.Partner, out.APIKey, cmd.Name = np.Partner, np.APIKey, np.Partner.Name
		case PartnerDisable, PartnerEnable:
			err = h.Enabled.Handle(ctx, application.SetPartnerEnabled{Name: cmd.Name, Enabled: cmd.Action == PartnerEnable})
		case PartnerRotateKey:
			var k application.RotatedKey
			k, err = h.Rotate.Handle(ctx, application.RotatePartnerKey{Name: cmd.Name, Overlap: cmd.Overlap})
			out.APIKey, out.OldKeyUntil = k.APIKey, k.OldUntil
			detail = "the old key stopped at once"
			if !k.OldUntil.IsZero() {
				detail = "the old key works until " + k.OldUntil.In(domain.Tashkent).Format(time.RFC3339)
			}
		case PartnerSetWebhook:
			out.WebhookSecret, err = h.Webhook.Handle(ctx, application.SetWebhook{Name: cmd.Name, URL: cmd.URL, AllowHTTP: cmd.AllowHTTP, Overlap: cmd.Overlap})
			detail = "removed"
			if u, perr := url.Parse(cmd.URL); cmd.URL != "" && perr == nil {
				detail = "to " + u.Scheme + "://" + u.Host + ", a new signing secret; the old one signs beside it for " + cmd.Overlap.String()
			}
		default:
			return fmt.Errorf("%w: no partner change %q", domain.ErrActionIncomplete, cmd.Action)
		}
		if err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "partner."+cmd.Action, "partner:"+cmd.Name, detail)
	})
	if err != nil {
		return PartnerChange{}, err
	}
	return out, nil
}
