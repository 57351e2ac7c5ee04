package scoring_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"

	"example.com/bank/fakebank"
	"example.com/bank/scoring"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/porttest"
)

// TestTheAdapterKeepsTheScoringContract runs tiyin's contract suite of the Scoring port against
// the adapter, talking to the fake engine in each of the suite's faults.
func TestTheAdapterKeepsTheScoringContract(t *testing.T) {
	faults := map[porttest.Fault]fakebank.Fault{porttest.Healthy: fakebank.Healthy, porttest.FailTransiently: fakebank.Busy,
		porttest.Hang: fakebank.Hang}
	porttest.RunScoring(t, func(t *testing.T, f porttest.Fault) ports.Scoring {
		bank, err := fakebank.Start(faults[f])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(bank.Close)
		return scoring.New(bank.Addr())
	}, porttest.ScoringCases{
		Approved:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: phone(t), ClientData: client(t, "31234567890123")},
		Declined:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: phone(t), ClientData: client(t, "31234567890199")},
		PostApproved: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer(t), ClientData: client(t, "31234567890123")},
		PostDeclined: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer(t), ClientData: client(t, "31234567890198")},
	})
}

// TestAnEngineNotListeningIsNotReached: no connection, so nothing happened at the bank.
func TestAnEngineNotListeningIsNotReached(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = scoring.New(addr).PostScore(context.Background(), ports.PostScoreRequest{IdempotencyKey: "k",
		Offer: offer(t), ClientData: client(t, "31234567890123")})
	if !errors.Is(err, ports.ErrGatewayNotReached) {
		t.Fatalf("error %v, want ports.ErrGatewayNotReached", err)
	}
}

// TestAPhoneCallIsAskedFor: the engine's CALL answer is the port's PhoneCallRequired.
func TestAPhoneCallIsAskedFor(t *testing.T) {
	bank, err := fakebank.Start(fakebank.Healthy)
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()
	got, err := scoring.New(bank.Addr()).PostScore(context.Background(), ports.PostScoreRequest{IdempotencyKey: "k",
		Offer: offer(t), ClientData: client(t, "31234567890197")})
	if err != nil || !got.Approved || !got.PhoneCallRequired || got.CallCentrePhone != fakebank.CallDesk {
		t.Fatalf("%+v, %v", got, err)
	}
}

func client(t *testing.T, pinfl string) domain.ClientData {
	t.Helper()
	c, err := domain.ParseClientData(domain.ClientDataInput{PINFL: pinfl, LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567",
		DocumentIssuedBy: "IIB", DocumentIssued: "2020-01-10", DocumentExpiry: "2035-01-09",
		Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1", Phone: "998901234567"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func phone(t *testing.T) domain.Phone {
	t.Helper()
	p, err := domain.ParsePhone("998901234567")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func offer(t *testing.T) domain.Offer {
	t.Helper()
	p, err := domain.ParsePercent("28")
	if err != nil {
		t.Fatal(err)
	}
	return domain.Offer{Amount: 100_000_000, Percent: p, MonthPeriod: 12}
}
