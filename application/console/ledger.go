package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LedgerPage is the bank's accounts and balances, the postings of one account, and the proof
// that the ledger is consistent (`tiyin ledger check`).
type LedgerPage struct {
	Accounts []ports.AccountBalance
	Account  string
	Entries  []ports.EntryRecord
	Check    *ports.LedgerCheck
}

// LedgerHandler reads the ledger's page.
type LedgerHandler struct {
	BackOffice ports.BackOffice
	Ledger     ports.LedgerRepository
}

// Handle reads the page; account, when set, is the account whose postings are shown; check
// runs the ledger check (it reads every entry, so only when asked).
func (h *LedgerHandler) Handle(ctx context.Context, who Actor, account string, check bool) (LedgerPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return LedgerPage{}, err
	}
	p := LedgerPage{Account: account}
	var err error
	if p.Accounts, err = h.BackOffice.Accounts(ctx, uuid.Nil); err != nil {
		return p, err
	}
	if account != "" {
		if p.Entries, err = h.BackOffice.Entries(ctx, []string{account}, pageRows); err != nil {
			return p, err
		}
	}
	if check {
		c, err := h.Ledger.Check(ctx)
		if err != nil {
			return p, err
		}
		p.Check = &c
	}
	return p, nil
}
