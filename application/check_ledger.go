package application

import (
	"context"

	"github.com/tiyin/tiyin/ports"
)

// CheckLedgerHandler proves the ledger consistent: every posting balanced, every stored
// balance equal to its entries, no demand account below zero.
type CheckLedgerHandler struct {
	Ledger ports.LedgerRepository
}

// Handle runs the check.
func (h *CheckLedgerHandler) Handle(ctx context.Context) (ports.LedgerCheck, error) {
	return h.Ledger.Check(ctx)
}
