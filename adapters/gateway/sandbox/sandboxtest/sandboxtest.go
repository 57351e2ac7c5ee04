// Package sandboxtest holds what the sandbox gateways know, as the cases of the ports'
// contract suites (ports/porttest): the sandbox adapters and the HTTP adapters in front of them
// run the same suites with the same cases.
package sandboxtest

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/porttest"
)

// Clock is the wall clock, for the sandbox gateways that need one.
type Clock struct{}

// Now implements ports.Clock.
func (Clock) Now(uuid.UUID) time.Time { return time.Now() }

// Ahead implements ports.Clock.
func (Clock) Ahead() []uuid.UUID { return nil }

// Outbox drops the sandbox SMS gateway's messages.
type Outbox struct{}

// Add implements ports.SMSOutbox.
func (Outbox) Add(context.Context, ports.SentSMS) error { return nil }

// List implements ports.SMSOutbox.
func (Outbox) List(context.Context, uuid.UUID, domain.Phone, int) ([]ports.SentSMS, error) {
	return nil, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Phone is the clients' phone.
var Phone = must(domain.ParsePhone("998901234567"))

// Client is a client with that PINFL (its ending decides what the sandbox does).
func Client(pinfl string) domain.ClientData {
	return must(domain.ParseClientData(domain.ClientDataInput{PINFL: pinfl, LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567",
		DocumentIssuedBy: "IIB", DocumentIssued: "2020-01-10", DocumentExpiry: "2035-01-09",
		Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1", Phone: "998901234567"}, time.Now()))
}

func offer() domain.Offer {
	return domain.Offer{Amount: 100_000_000, Percent: must(domain.ParsePercent("28")), MonthPeriod: 12}
}

// ProcessingCases are the sandbox processing's cards and debits.
func ProcessingCases() porttest.ProcessingCases {
	pan := func(s string) domain.PAN { return must(domain.ParsePAN(s)) }
	credit := func(p string) ports.CreditRequest {
		return ports.CreditRequest{PAN: pan(p), Network: domain.NetworkUzcard, Amount: 1_000_000, CardHolder: "AZIZ KARIMOV"}
	}
	expiry := must(domain.ParseExpiry("3012", time.Now()))
	return porttest.ProcessingCases{
		Credit:        credit("8600123456789012"),
		RefusedCredit: credit("8600000000000014"),
		UnknownCard:   credit("5555123456789012"),
		Attach:        ports.CardQuery{PAN: pan("8600123456789013"), Expiry: expiry, Network: domain.NetworkUzcard, Phone: Phone},
		RejectedCard:  ports.CardQuery{PAN: pan("9860000000000002"), Expiry: expiry, Network: domain.NetworkHumo, Phone: Phone},
		Debit:         ports.DebitQuery{DebitID: "DBT-" + uuid.NewString(), Network: domain.NetworkUzcard, Amount: 1_000_000},
		UnknownDebit:  ports.DebitQuery{DebitID: "FAIL-1", Network: domain.NetworkUzcard, Amount: 1_000_000},
	}
}

// ScoringCases are the sandbox scoring's clients.
func ScoringCases() porttest.ScoringCases {
	return porttest.ScoringCases{
		Approved:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: Phone, ClientData: Client("31234567890123")},
		Declined:     ports.PreScoreRequest{ApplicationID: uuid.New(), Phone: Phone, ClientData: Client("3123456789" + sandbox.PINFLDeclined)},
		PostApproved: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer(), ClientData: Client("31234567890123")},
		PostDeclined: ports.PostScoreRequest{ApplicationID: uuid.New(), Offer: offer(),
			ClientData: Client("3123456789" + sandbox.PINFLPostScoringDeclined)},
	}
}

// CoreBankingCases are the sandbox core banking's clients.
func CoreBankingCases() porttest.CoreBankingCases {
	app := uuid.New()
	return porttest.CoreBankingCases{
		Account:        ports.OpenAccountRequest{ApplicationID: app, Phone: Phone, ClientData: Client("31234567890123")},
		RefusedAccount: ports.OpenAccountRequest{ApplicationID: uuid.New(), Phone: Phone, ClientData: Client("3123456789" + sandbox.PINFLCoreRefuses)},
		Application:    ports.LoanApplicationRequest{ApplicationID: app, Offer: offer()},
		Issue:          ports.IssueLoanRequest{ApplicationID: app},
		Contract:       ports.ContractRequest{ApplicationID: app},
	}
}

// SMSCases are a message the sandbox SMS gateway sends and one it refuses.
func SMSCases() porttest.SMSCases {
	masked := func(p string) string { return must(domain.ParsePAN(p)).Masked() }
	return porttest.SMSCases{
		Delivered: ports.SMS{Phone: Phone, Text: "Code 123456", Code: "123456", Card: masked("8600123456789013")},
		Refused:   ports.SMS{Phone: Phone, Text: "Code 123456", Code: "123456", Card: masked(sandbox.PANSMSFails)},
	}
}

// CardIssuerCases are a card order the sandbox issuer fulfils and one it declines.
func CardIssuerCases() porttest.CardIssuerCases {
	return porttest.CardIssuerCases{
		Issued:   ports.CardIssueRequest{OrderID: uuid.New(), Phone: Phone, ClientData: Client("31234567890123")},
		Declined: ports.CardIssueRequest{OrderID: uuid.New(), Phone: Phone, ClientData: Client("3123456789" + sandbox.PINFLCardDeclined)},
	}
}

// GeneralLedgerCases are a balanced journal of a day.
func GeneralLedgerCases() porttest.GeneralLedgerCases {
	return porttest.GeneralLedgerCases{Journal: ports.GLJournal{Day: domain.BusinessDate(time.Now()), Lines: []ports.GLLine{
		{GL: "12401", Debits: 1_000_000, Credits: 0}, {GL: "16307", Debits: 7_671, Credits: 0},
		{GL: "20206", Debits: 0, Credits: 1_000_000}, {GL: "42001", Debits: 0, Credits: 7_671}}}}
}
