package console

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// clientLimit bounds each part of a client's record.
const clientLimit = 200

// ErrNoClient refuses a client reference that is not a PINFL's blind index.
var ErrNoClient = fmt.Errorf("%w: no such client", domain.ErrApplicationNotFound)

// ClientHandler reads one person across partners, found by their PINFL's blind index
// (the console searches a PINFL, never shows or links it in clear).
type ClientHandler struct {
	Clock      ports.Clock
	UoW        ports.UnitOfWork
	BackOffice ports.BackOffice
	Audit      Audit
}

// Handle returns the client's record. Looking a person up across partners is a read of
// personal data: it is audited first.
func (h *ClientHandler) Handle(ctx context.Context, who Actor, index string) (ports.ClientRecord, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ports.ClientRecord{}, err
	}
	if b, err := hex.DecodeString(index); err != nil || len(b) != 32 {
		return ports.ClientRecord{}, ErrNoClient
	}
	if err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Audit.record(ctx, who, "client.view", "client:"+index[:16], "")
	}); err != nil {
		return ports.ClientRecord{}, err
	}
	c, err := h.BackOffice.Client(ctx, index, application.BusinessToday(h.Clock), clientLimit)
	if err == nil && len(c.Applications) == 0 {
		err = ErrNoClient
	}
	return c, err
}
