package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/client"
)

// A partner's backend pays a repayment. The client repeats the call with the same envelope id
// while tiyin answers that a repeat may succeed (code 10), so money moves once; a business
// refusal is read by its code.
func ExampleRepayments_Pay() {
	c, err := client.New("https://tiyin.bank.uz", os.Getenv("TIYIN_KEY"), client.WithUserAgent("acme-loans/2.1"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quote, err := c.Repayments.Check(ctx, "4829105736")
	if err != nil {
		log.Fatal(err)
	}
	paid, err := c.Repayments.Pay(ctx, client.PayRepaymentParams{LoanID: "4829105736", RequestID: quote.RequestID,
		PaymentType: client.PaymentTerm, DebitID: "DBT-1", Amount: quote.MaxAmount, ProcessingType: client.ProcessingUzcard})
	var e *client.Error
	switch {
	case errors.Is(err, client.CodeRepaymentExpired):
		fmt.Println("check the loan again: the quote expired")
	case errors.As(err, &e):
		fmt.Printf("refused: code %d, %s (quote request %s to the bank)\n", e.Code, e.Message, e.RequestID)
	case err != nil:
		fmt.Println("outcome unknown: pay again later with the same envelope id:", err)
	default:
		fmt.Println(paid.Status)
	}
}

// A partner registers an application for pre-scoring and offers the client what it approved.
// Dates are client.Date, the percent a client.Percent that keeps its exact digits.
func ExampleApplications_Register() {
	c, err := client.New("http://localhost:8080", os.Getenv("TIYIN_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	person := client.ClientData{PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
		BirthDate: client.NewDate(1990, time.May, 17), Phone: "998901234567",
		Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
			IssuedDate: client.NewDate(2020, time.January, 10), ExpiryDate: client.NewDate(2030, time.January, 9)},
		Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}
	reg, err := c.Applications.Register(ctx, client.RegisterApplicationParams{ExternalID: uuid.New(),
		AgreementAccepted: true, PhoneNumber: "998901234567", ClientData: person})
	if err != nil {
		log.Fatal(err)
	}
	app, err := c.Applications.Info(ctx, reg.ApplicationID) // poll until PENDING
	if err != nil || app.Status != client.ApplicationPending || app.PreScoreResult == nil {
		log.Fatal("not approved yet: ", err)
	}
	offer := app.PreScoreResult
	if _, err := c.Applications.Verify(ctx, client.VerifyApplicationParams{ApplicationID: reg.ApplicationID,
		Amount: min(300_000_000, offer.AmountLimit), Percent: offer.Percent, MonthPeriod: offer.MonthPeriod,
		BackupPhone: "998911112233"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("offered at", offer.Percent, "%")
}

// A partner's webhook receiver checks each delivery's signature before it trusts the body,
// then reads the event.
func ExampleVerifyWebhook() {
	http.HandleFunc("/tiyin-events", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := client.VerifyWebhook(os.Getenv("TIYIN_WEBHOOK_SECRET"), body, r.Header, time.Now()); err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var ev client.Event
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		// store the event by its ID (ignore a repeat), act on it later, answer at once
		w.WriteHeader(http.StatusNoContent)
	})
}

// Events decode their data into the type's struct.
func ExampleEvent_Decode() {
	var ev client.Event
	_ = json.Unmarshal([]byte(`{"id":"019a8b7c-6d5e-7f40-8a1b-2c3d4e5f6a7b","type":"LOAN_CONTRACT_ASSIGNED","sequence":42,
		"createdAt":"2026-11-22T10:15:30.125+05:00","data":{"applicationId":"5f0c6a52-1b7e-4a8c-9d3e-2f1a0b9c8d7e","loanId":"4829105736"}}`), &ev)
	data, err := ev.Decode()
	if err != nil {
		log.Fatal(err)
	}
	switch d := data.(type) {
	case *client.LoanContractAssigned:
		fmt.Println("loan", d.LoanID, "of application", d.ApplicationID)
	case *client.ApplicationStatusChanged:
		fmt.Println("application", d.ApplicationID, "is", d.Status)
	}
	// Output: loan 4829105736 of application 5f0c6a52-1b7e-4a8c-9d3e-2f1a0b9c8d7e
}

// A percent reads and prints exactly.
func ExampleParsePercent() {
	p, err := client.ParsePercent("28.0")
	fmt.Println(p, p.Hundredths(), err)
	_, err = client.ParsePercent("28.125")
	fmt.Println(err)
	// Output:
	// 28.00 2800 <nil>
	// tiyin client: percent "28.125": more than two decimals
}
