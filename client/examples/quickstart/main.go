// Command quickstart registers a microloan application with tiyin and prints the offer
// pre-scoring approves (client/README.md shows it).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/client"
)

func main() {
	c, err := client.New(os.Getenv("TIYIN_URL"), os.Getenv("TIYIN_KEY"), client.WithUserAgent("acme-loans/1.0"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	reg, err := c.Applications.Register(ctx, client.RegisterApplicationParams{
		ExternalID:        uuid.New(), // your own id of the application
		AgreementAccepted: true,
		PhoneNumber:       "998901234567",
		ClientData: client.ClientData{
			PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
			BirthDate: client.NewDate(1990, time.May, 17), Phone: "998901234567",
			Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567",
				IssuedBy: "Toshkent IIB", IssuedDate: client.NewDate(2020, time.January, 10),
				ExpiryDate: client.NewDate(2030, time.January, 9)},
			Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"},
		},
	})
	var refusal *client.Error
	switch {
	case errors.Is(err, client.CodeExternalIDUsed):
		log.Fatal("this externalId was registered before")
	case errors.As(err, &refusal):
		log.Fatalf("refused: code %d: %s (request %s)", refusal.Code, refusal.Message, refusal.RequestID)
	case err != nil:
		log.Fatal("no answer, after the client's retries: ", err)
	}

	// Pre-scoring runs in the background: read the application until it has an outcome.
	for {
		app, err := c.Applications.Info(ctx, reg.ApplicationID)
		if err != nil {
			log.Fatal(err)
		}
		switch app.Status {
		case client.ApplicationPending:
			offer := app.PreScoreResult
			fmt.Printf("approved: up to %d tiyin, up to %d months, at %s%%\n", offer.AmountLimit, offer.MonthPeriod, offer.Percent)
			return
		case client.ApplicationRejected:
			fmt.Printf("declined: code %d, %s\n", app.LastTask.ErrorCode, app.LastTask.ErrorMessage)
			return
		}
		time.Sleep(time.Second)
	}
}
