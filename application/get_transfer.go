package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetTransferHandler answers check-status (endpoint 8); it stores nothing.
type GetTransferHandler struct {
	Transfers ports.TransferRepository
}

// Handle returns the partner's transfer.
func (h *GetTransferHandler) Handle(ctx context.Context, ref TransferRef) (*domain.Transfer, error) {
	return getTransfer(ctx, h.Transfers, ref)
}
