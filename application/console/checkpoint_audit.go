package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CheckpointAuditHandler sends the audit log's head out of the database's reach (`tiyin audit
// checkpoint`): to the service's log, and to the bank's SIEM when it has one. A later `tiyin
// audit verify --anchor` with that head proves the log still holds it and everything before
// it, which the database alone cannot prove against its owner.
type CheckpointAuditHandler struct {
	Log    ports.AuditLog
	Sender ports.AuditCheckpointSender
}

// Handle reads the head as who (an admin, or the command line) and sends it. The head comes
// back with the sender's error too, so that it can still be written down.
func (h *CheckpointAuditHandler) Handle(ctx context.Context, who Actor) (ports.AuditHead, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return ports.AuditHead{}, err
	}
	head, err := h.Log.Head(ctx)
	if err != nil {
		return ports.AuditHead{}, err
	}
	return head, h.Sender.Send(ctx, head)
}
