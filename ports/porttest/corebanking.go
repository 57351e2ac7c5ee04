package porttest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CoreBankingCases are clients the core banking behind the adapter serves or refuses. The
// suite sets the idempotency keys and chains the references.
type CoreBankingCases struct {
	Account        ports.OpenAccountRequest     // a client whose account it opens
	RefusedAccount ports.OpenAccountRequest     // a client it refuses: ErrGatewayRefused
	Application    ports.LoanApplicationRequest // the loan application of Account's client
	Issue          ports.IssueLoanRequest       // its issuance
	Contract       ports.ContractRequest        // its contract number
}

// RunCoreBanking checks a CoreBanking adapter against the port's contract: the five issuance
// stages in order, each repeatable with its key, then the contract number, then the day's
// closing balances.
func RunCoreBanking(t *testing.T, newAdapter Constructor[ports.CoreBanking], c CoreBankingCases) {
	t.Run("an account, a loan application, an issuance, a contract number and the day's balances, each repeatable", func(t *testing.T) {
		cb, ctx := healthy(t, newAdapter), context.Background()
		open := c.Account
		open.IdempotencyKey = key(t, "OPEN_ACCOUNT")
		account, err := cb.OpenAccount(ctx, open)
		if err != nil || account == "" {
			t.Fatalf("OpenAccount: %q, %v", account, err)
		}
		if again, err := cb.OpenAccount(ctx, open); err != nil || again != account {
			t.Fatalf("OpenAccount with the same key: %q, %v; want %q", again, err, account)
		}
		la := c.Application
		la.IdempotencyKey, la.AccountNumber = key(t, "OPEN_LOAN_APPLICATION"), account
		ref, err := cb.OpenLoanApplication(ctx, la)
		if err != nil || ref == "" {
			t.Fatalf("OpenLoanApplication: %q, %v", ref, err)
		}
		if again, err := cb.OpenLoanApplication(ctx, la); err != nil || again != ref {
			t.Fatalf("OpenLoanApplication with the same key: %q, %v; want %q", again, err, ref)
		}
		approved(t, "LoanApplicationResult", func() (ports.Answer, error) { return cb.LoanApplicationResult(ctx, ref) })
		issue := c.Issue
		issue.IdempotencyKey, issue.AccountNumber, issue.LoanApplicationRef = key(t, "LOAN_ISSUANCE"), account, ref
		if issue.Amount == 0 {
			issue.Amount = la.Offer.Amount.Tiyin()
		}
		if issue.At.IsZero() {
			issue.At = time.Now()
		}
		iref, err := cb.IssueLoan(ctx, issue)
		if err != nil || iref == "" {
			t.Fatalf("IssueLoan: %q, %v", iref, err)
		}
		if again, err := cb.IssueLoan(ctx, issue); err != nil || again != iref {
			t.Fatalf("IssueLoan with the same key: %q, %v; want %q", again, err, iref)
		}
		approved(t, "IssuanceResult", func() (ports.Answer, error) { return cb.IssuanceResult(ctx, iref) })
		contract := c.Contract
		contract.IdempotencyKey, contract.AccountNumber = key(t, "CONTRACT"), account
		var number string
		eventually(t, "ContractNumber", func() (bool, error) {
			number, err = cb.ContractNumber(ctx, contract)
			return err == nil, err
		})
		if number == "" || strings.Trim(number, "0123456789") != "" {
			t.Fatalf("ContractNumber %q: want digits only", number)
		}
		if again, err := cb.ContractNumber(ctx, contract); err != nil || again != number {
			t.Fatalf("ContractNumber asked again: %q, %v; want %q", again, err, number)
		}
		// The disbursement is on the demand account at the day's end, once however often it
		// was asked for; three days before, the account held nothing.
		day := domain.BusinessDate(issue.At)
		eventually(t, "Balances", func() (bool, error) {
			bs, err := cb.Balances(ctx, day)
			return demandOf(bs, account) == issue.Amount, err
		})
		before, err := cb.Balances(ctx, day.AddDate(0, 0, -3))
		if err != nil || demandOf(before, account) != 0 {
			t.Fatalf("Balances three days before the issuance: %d on the account, %v", demandOf(before, account), err)
		}
	})
	t.Run("a refused client is ErrGatewayRefused, saying why", func(t *testing.T) {
		open := c.RefusedAccount
		open.IdempotencyKey = key(t, "OPEN_ACCOUNT")
		_, err := healthy(t, newAdapter).OpenAccount(context.Background(), open)
		if !errors.Is(err, ports.ErrGatewayRefused) || err.Error() == ports.ErrGatewayRefused.Error() {
			t.Fatalf("OpenAccount: %v, want ErrGatewayRefused with the bank's reason", err)
		}
	})
	faults(t, newAdapter, func(ctx context.Context, cb ports.CoreBanking) error {
		open := c.Account
		open.IdempotencyKey = key(t, "OPEN_ACCOUNT")
		_, err := cb.OpenAccount(ctx, open)
		return err
	})
}

// demandOf is the demand balance of account among bs, 0 when it is not listed.
func demandOf(bs []domain.AccountBalance, account string) int64 {
	var sum int64
	for _, b := range bs {
		if b.Account == account && b.Kind == domain.LineDemand {
			sum += b.Balance
		}
	}
	return sum
}

// approved polls an asynchronous answer until it is no longer pending and wants it approved.
func approved(t *testing.T, what string, ask func() (ports.Answer, error)) {
	t.Helper()
	var a ports.Answer
	eventually(t, what, func() (bool, error) {
		var err error
		a, err = ask()
		return err == nil && a.Status != ports.AnswerPending, err
	})
	if a.Status != ports.AnswerApproved {
		t.Fatalf("%s: %+v, want approved", what, a)
	}
}
