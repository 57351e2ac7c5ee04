package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CoreBanking is the sandbox core banking system. Accounts and references are derived from
// the idempotency key, so a repeated call returns what the first one did. Its disbursements
// are kept in the sandbox bank's journal, shared with the sandbox network, whose credits draw
// on the demand accounts: the source of its closing balances. Only the count of lost issuance
// answers (PINFLIssuanceTimesOut) is kept in memory.
type CoreBanking struct {
	journal ports.NetworkJournal
	mu      sync.Mutex
	lost    map[string]int
}

// NewCoreBanking returns the sandbox core banking with a journal in this process's memory
// (for tests; a server shares the database's with the network: NewCoreBankingWith).
func NewCoreBanking() *CoreBanking { return NewCoreBankingWith(NewMemoryJournal()) }

// NewCoreBankingWith returns the sandbox core banking keeping its disbursements in journal.
func NewCoreBankingWith(journal ports.NetworkJournal) *CoreBanking {
	return &CoreBanking{journal: journal, lost: map[string]int{}}
}

// accountTimesOut marks, in the account number, a client whose issuance answers are lost; the
// digit after it is how many. Its balance-account prefix (20206) is one the sandbox never gives
// an ordinary account (20208), so no generated number can carry the mark by chance.
const accountTimesOut = "20206000" + PINFLIssuanceTimesOut

// OpenAccount implements ports.CoreBanking.
func (*CoreBanking) OpenAccount(_ context.Context, req ports.OpenAccountRequest) (string, error) {
	switch pinfl := req.ClientData.PINFL(); {
	case hasEnding(pinfl, PINFLCoreRefuses):
		return "", fmt.Errorf("%w: ACCOUNT_REFUSED: the client may not open an account", ports.ErrGatewayRefused)
	case hasEnding(pinfl, PINFLCoreDown):
		return "", fmt.Errorf("%w: core banking refused the connection", ports.ErrGatewayNotReached)
	case len(pinfl) >= 4 && pinfl[len(pinfl)-4:len(pinfl)-1] == PINFLIssuanceTimesOut && pinfl[len(pinfl)-1] != '0':
		return accountTimesOut + pinfl[len(pinfl)-1:] + digitsOf(req.IdempotencyKey, 8), nil
	}
	// 20208 is the balance account of demand deposits of individuals, 000 the so'm.
	return "20208000" + digitsOf(req.IdempotencyKey, 12), nil
}

// OpenLoanApplication implements ports.CoreBanking.
func (*CoreBanking) OpenLoanApplication(_ context.Context, req ports.LoanApplicationRequest) (string, error) {
	return refOf("LA", req.IdempotencyKey), nil
}

// LoanApplicationResult implements ports.CoreBanking.
func (*CoreBanking) LoanApplicationResult(context.Context, string) (ports.Answer, error) {
	return ports.Answer{Status: ports.AnswerApproved}, nil
}

// IssueLoan implements ports.CoreBanking: the principal is disbursed onto the demand account
// (once per idempotency key). For an account of PINFLIssuanceTimesOut the loan is issued, but
// the first N answers are lost.
func (c *CoreBanking) IssueLoan(ctx context.Context, req ports.IssueLoanRequest) (string, error) {
	at := req.At
	if at.IsZero() {
		at = time.Now()
	}
	if err := c.journal.Disburse(ctx, req.IdempotencyKey, req.AccountNumber, req.Amount, at); err != nil {
		return "", fmt.Errorf("%w: core banking's journal: %w", ports.ErrGatewayTransient, err)
	}
	if n, ok := strings.CutPrefix(req.AccountNumber, accountTimesOut); ok && len(n) > 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.lost[req.IdempotencyKey] < int(n[0]-'0') {
			c.lost[req.IdempotencyKey]++
			return "", fmt.Errorf("%w: core banking's answer to the issuance was lost (sandbox: %d of %c)",
				ports.ErrGatewayTransient, c.lost[req.IdempotencyKey], n[0])
		}
	}
	return refOf("LI", req.IdempotencyKey), nil
}

// IssuanceResult implements ports.CoreBanking.
func (*CoreBanking) IssuanceResult(context.Context, string) (ports.Answer, error) {
	return ports.Answer{Status: ports.AnswerApproved}, nil
}

// Balances implements ports.CoreBanking: the demand accounts' closing balances, from the
// journal. The sandbox keeps no loan balances (it is told no repayment's split), so tiyin
// compares its demand accounts only.
func (c *CoreBanking) Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error) {
	return c.journal.Balances(ctx, day)
}

// ContractNumber implements ports.CoreBanking: a 10-digit number derived from the request, so
// it is the same however often it is asked for.
func (*CoreBanking) ContractNumber(_ context.Context, req ports.ContractRequest) (string, error) {
	return digitsOf(req.ApplicationID.String()+":CONTRACT", 10), nil
}
