package sandbox

import (
	"context"
	"fmt"

	"github.com/tiyin/tiyin/ports"
)

// CoreBanking is the sandbox core banking system. Accounts and references are derived from
// the idempotency key, so a repeated call returns what the first one did.
type CoreBanking struct{}

// NewCoreBanking returns the sandbox core banking.
func NewCoreBanking() *CoreBanking { return &CoreBanking{} }

// OpenAccount implements ports.CoreBanking.
func (CoreBanking) OpenAccount(_ context.Context, req ports.OpenAccountRequest) (string, error) {
	switch pinfl := req.ClientData.PINFL(); {
	case hasEnding(pinfl, PINFLCoreRefuses):
		return "", fmt.Errorf("%w: ACCOUNT_REFUSED: the client may not open an account", ports.ErrGatewayRefused)
	case hasEnding(pinfl, PINFLCoreDown):
		return "", fmt.Errorf("%w: core banking did not answer", ports.ErrGatewayTransient)
	}
	// 20208 is the balance account of demand deposits of individuals, 000 the so'm.
	return "20208000" + digitsOf(req.IdempotencyKey, 12), nil
}

// OpenLoanApplication implements ports.CoreBanking.
func (CoreBanking) OpenLoanApplication(_ context.Context, req ports.LoanApplicationRequest) (string, error) {
	return refOf("LA", req.IdempotencyKey), nil
}

// LoanApplicationResult implements ports.CoreBanking.
func (CoreBanking) LoanApplicationResult(context.Context, string) (ports.Answer, error) {
	return ports.Answer{Status: ports.AnswerApproved}, nil
}

// IssueLoan implements ports.CoreBanking.
func (CoreBanking) IssueLoan(_ context.Context, req ports.IssueLoanRequest) (string, error) {
	return refOf("LI", req.IdempotencyKey), nil
}

// IssuanceResult implements ports.CoreBanking.
func (CoreBanking) IssuanceResult(context.Context, string) (ports.Answer, error) {
	return ports.Answer{Status: ports.AnswerApproved}, nil
}

// ContractNumber implements ports.CoreBanking: a 10-digit number derived from the request, so
// it is the same however often it is asked for.
func (CoreBanking) ContractNumber(_ context.Context, req ports.ContractRequest) (string, error) {
	return digitsOf(req.ApplicationID.String()+":CONTRACT", 10), nil
}
