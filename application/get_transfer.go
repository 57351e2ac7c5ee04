package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
)

// GetTransferHandler answers check-status (endpoint 8); it stores nothing.
type GetTransferHandler struct{ d Deps }

// Handle returns the partner's transfer.
func (h *GetTransferHandler) Handle(ctx context.Context, ref TransferRef) (*domain.Transfer, error) {
	return getTransfer(ctx, h.d, ref)
}
