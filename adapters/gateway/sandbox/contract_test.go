package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/porttest"
)

// The sandbox gateways keep the ports' contracts. Their faults come from the gateway guard's
// fault injection, the same that TIYIN_SANDBOX_FAULTS switches on.

var today = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return today }

// guarded wraps an adapter as tiyin runs it, the system showing fault.
func guarded[P any](wrap func(*guard.Guard, P) P, p P, fault porttest.Fault) P {
	var f sandbox.Faults
	switch fault {
	case porttest.FailTransiently:
		f.ErrorRate = 1
	case porttest.Hang:
		f.TimeoutRate = 1
	}
	return wrap(guard.New(guard.Config{Timeout: 5 * time.Second, Faults: f}, nil), p)
}

func client(t *testing.T, pinfl string) domain.ClientData {
	t.Helper()
	cd, err := domain.ParseClientData(domain.ClientDataInput{PINFL: pinfl, LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567",
		DocumentIssuedBy: "IIB", DocumentIssued: "2020-01-10", DocumentExpiry: "2030-01-09",
		Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1", Phone: "998901234567"}, today)
	if err != nil {
		t.Fatal(err)
	}
	return cd
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var phone = must(domain.ParsePhone("998901234567"))

func TestProcessingContract(t *testing.T) {
	porttest.RunProcessing(t, func(_ *testing.T, f porttest.Fault) ports.Processing {
		return guarded((*guard.Guard).Processing, ports.Processing(sandbox.NewProcessing()), f)
	}, processingCases())
}

func processingCases() porttest.ProcessingCases {
	pan := func(s string) domain.PAN { return must(domain.ParsePAN(s)) }
	credit := func(p string) ports.CreditRequest {
		return ports.CreditRequest{PAN: pan(p), Network: domain.NetworkUzcard, Amount: 1_000_000, CardHolder: "AZIZ KARIMOV"}
	}
	expiry := must(domain.ParseExpiry("3012", today))
	return porttest.ProcessingCases{
		Credit:        credit("8600123456789012"),
		RefusedCredit: credit("8600000000000014"),
		UnknownCard:   credit("5555123456789012"),
		Attach:        ports.CardQuery{PAN: pan("8600123456789013"), Expiry: expiry, Network: domain.NetworkUzcard, Phone: phone},
		RejectedCard:  ports.CardQuery{PAN: pan("9860000000000002"), Expiry: expiry, Network: domain.NetworkHumo, Phone: phone},
		Debit:         ports.DebitQuery{DebitID: "DBT-" + uuid.NewString(), Network: domain.NetworkUzcard, Amount: 1_000_000},
		UnknownDebit:  ports.DebitQuery{DebitID: "FAIL-1", Network: domain.NetworkUzcard, Amount: 1_000_000},
	}
}

func TestScoringContract(t *testing.T) {
	offer := domain.Offer{Amount: 100_000_000, Percent: must(domain.ParsePercent("28")), MonthPeriod: 12}
	porttest.RunScoring(t, func(_ *testing.T, f porttest.Fault) ports.Scoring {
		return guarded((*guard.Guard).Scoring, ports.Scoring(sandbox.NewScoring()), f)
	}, porttest.ScoringCases{
		Approved:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: phone, ClientData: client(t, "31234567890123")},
		Declined:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: phone, ClientData: client(t, "31234567890000")},
		PostApproved: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer, ClientData: client(t, "31234567890123")},
		PostDeclined: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer, ClientData: client(t, "31234567892222")},
	})
}

func TestCoreBankingContract(t *testing.T) {
	app := uuid.New()
	porttest.RunCoreBanking(t, func(_ *testing.T, f porttest.Fault) ports.CoreBanking {
		return guarded((*guard.Guard).CoreBanking, ports.CoreBanking(sandbox.NewCoreBanking()), f)
	}, porttest.CoreBankingCases{
		Account:        ports.OpenAccountRequest{ApplicationID: app, Phone: phone, ClientData: client(t, "31234567890123")},
		RefusedAccount: ports.OpenAccountRequest{ApplicationID: uuid.New(), Phone: phone, ClientData: client(t, "31234567893333")},
		Application: ports.LoanApplicationRequest{ApplicationID: app,
			Offer: domain.Offer{Amount: 100_000_000, Percent: must(domain.ParsePercent("28")), MonthPeriod: 12}},
		Issue:    ports.IssueLoanRequest{ApplicationID: app},
		Contract: ports.ContractRequest{ApplicationID: app},
	})
}

// memoryOutbox keeps the sandbox SMS gateway's messages for the test.
type memoryOutbox struct {
	mu   sync.Mutex
	sent []ports.SentSMS
}

func (o *memoryOutbox) Add(_ context.Context, m ports.SentSMS) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, m)
	return nil
}

func (o *memoryOutbox) List(context.Context, domain.Phone, int) ([]ports.SentSMS, error) {
	return nil, nil
}

func TestSMSSenderContract(t *testing.T) {
	masked := func(p string) string { return must(domain.ParsePAN(p)).Masked() }
	porttest.RunSMSSender(t, func(_ *testing.T, f porttest.Fault) ports.SMSSender {
		return guarded((*guard.Guard).SMSSender, ports.SMSSender(sandbox.NewSMSSender(&memoryOutbox{}, fixedClock{})), f)
	}, porttest.SMSCases{
		Delivered: ports.SMS{Phone: phone, Text: "Code 123456", Code: "123456", Card: masked("8600123456789013")},
		Refused:   ports.SMS{Phone: phone, Text: "Code 123456", Code: "123456", Card: masked(sandbox.PANSMSFails)},
	})
}

func TestCardIssuerContract(t *testing.T) {
	porttest.RunCardIssuer(t, func(_ *testing.T, f porttest.Fault) ports.CardIssuer {
		return guarded((*guard.Guard).CardIssuer, ports.CardIssuer(sandbox.NewCardIssuer(fixedClock{})), f)
	}, porttest.CardIssuerCases{
		Issued:   ports.CardIssueRequest{OrderID: uuid.New(), Phone: phone, ClientData: client(t, "31234567890123")},
		Declined: ports.CardIssueRequest{OrderID: uuid.New(), Phone: phone, ClientData: client(t, "3123456789"+sandbox.PINFLCardDeclined)},
	})
}

// forgetful acts twice on a repeated key: its second Credit with the same key is a new credit,
// refused for lack of funds, and its errors are not classified.
type forgetful struct {
	ports.Processing
	mu   sync.Mutex
	seen map[string]bool
}

func (f *forgetful) Credit(ctx context.Context, o ports.CreditOrder) (ports.CreditResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[o.IdempotencyKey] {
		return ports.CreditResult{Reason: "insufficient funds"}, nil
	}
	f.seen[o.IdempotencyKey] = true
	return f.Processing.Credit(ctx, o)
}

// TestContractCatchesABrokenAdapter runs the Processing suite on an adapter that breaks the
// idempotency contract, in a child test process, and wants it to fail saying so: the suites
// can fail.
func TestContractCatchesABrokenAdapter(t *testing.T) {
	if os.Getenv("TIYIN_BROKEN_ADAPTER") == "1" {
		porttest.RunProcessing(t, func(*testing.T, porttest.Fault) ports.Processing {
			return &forgetful{Processing: sandbox.NewProcessing(), seen: map[string]bool{}}
		}, processingCases())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestContractCatchesABrokenAdapter$")
	cmd.Env = append(os.Environ(), "TIYIN_BROKEN_ADAPTER=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Credit with the same key") {
		t.Fatalf("the suite passed a forgetful adapter (%v):\n%s", err, out)
	}
}
