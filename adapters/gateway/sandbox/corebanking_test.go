package sandbox_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestOrdinaryClientsNeverMeetTheIssuanceTimeoutMagic: the magic pinfl ending 666N loses the
// first N issuance answers; no ordinary client's generated account may carry that mark. Before
// the mark had a prefix of its own, an account whose generated digits began 666N (about 0.9 %
// of them) stalled its issuance.
func TestOrdinaryClientsNeverMeetTheIssuanceTimeoutMagic(t *testing.T) {
	t.Parallel()
	core := sandbox.NewCoreBanking()
	ctx := context.Background()
	client := domain.RestoreClientData(domain.ClientDataInput{PINFL: "31234567890123"})
	const n = 5000
	for i := range n {
		key := fmt.Sprintf("app-%d:OPEN_ACCOUNT", i)
		account, err := core.OpenAccount(ctx, ports.OpenAccountRequest{IdempotencyKey: key, ClientData: client})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := core.IssueLoan(ctx, ports.IssueLoanRequest{IdempotencyKey: fmt.Sprintf("app-%d:LOAN_ISSUANCE", i), AccountNumber: account}); err != nil {
			t.Fatalf("an ordinary client's issuance (account %s…) lost its answer: %v", account[:8], err)
		}
	}
	// The magic value itself still works: 6663 loses three answers, then issues.
	magic := domain.RestoreClientData(domain.ClientDataInput{PINFL: "31234567896663"})
	account, err := core.OpenAccount(ctx, ports.OpenAccountRequest{IdempotencyKey: "magic:OPEN_ACCOUNT", ClientData: magic})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		_, err := core.IssueLoan(ctx, ports.IssueLoanRequest{IdempotencyKey: "magic:LOAN_ISSUANCE", AccountNumber: account})
		if lost := i < 3; lost != (err != nil) {
			t.Fatalf("answer %d: %v", i+1, err)
		}
	}
}
