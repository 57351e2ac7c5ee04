// Command sandbox-loan walks one microloan through a tiyin sandbox with the Go client, as a
// partner's backend does: register, wait for pre-scoring, offer, issue, wait for the loan,
// move the sandbox clock until the loan has its number, read its schedule, and repay part of
// it.
//
//	make run                                   # in tiyin's repository: prints the sandbox key
//	TIYIN_URL=http://localhost:8080 TIYIN_KEY=… go run ./examples/sandbox-loan
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
	url := os.Getenv("TIYIN_URL")
	if url == "" {
		url = "http://localhost:8080"
	}
	c, err := client.New(url, os.Getenv("TIYIN_KEY"), client.WithUserAgent("sandbox-loan-example"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := walk(ctx, c); err != nil {
		var e *client.Error
		if errors.As(err, &e) {
			log.Fatalf("tiyin refused: code %d: %s (request %s)", e.Code, e.Message, e.RequestID)
		}
		log.Fatal(err)
	}
}

func walk(ctx context.Context, c *client.Client) error {
	person := client.ClientData{PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
		BirthDate: client.NewDate(1990, time.May, 17), Phone: "998901234567",
		Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
			IssuedDate: client.NewDate(2020, time.January, 10), ExpiryDate: client.NewDate(2030, time.January, 9)},
		Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}
	reg, err := c.Applications.Register(ctx, client.RegisterApplicationParams{ExternalID: uuid.New(),
		AgreementAccepted: true, PhoneNumber: "998901234567", ClientData: person})
	if err != nil {
		return err
	}
	id := reg.ApplicationID
	app, err := until(ctx, func() (*client.Application, bool, error) {
		a, err := c.Applications.Info(ctx, id)
		return a, err == nil && a.Status != client.ApplicationNew && a.Status != client.ApplicationInProgress, err
	})
	if err != nil {
		return err
	}
	if app.Status != client.ApplicationPending || app.PreScoreResult == nil {
		return fmt.Errorf("pre-scoring: %s at %s/%s", app.Status, app.LastTask.Name, app.LastTask.Status)
	}
	offer := app.PreScoreResult
	fmt.Printf("approved: up to %d tiyin for up to %d months at %s%%\n", offer.AmountLimit, offer.MonthPeriod, offer.Percent)

	v, err := c.Applications.Verify(ctx, client.VerifyApplicationParams{ApplicationID: id, Amount: min(300_000_000, offer.AmountLimit),
		Percent: offer.Percent, MonthPeriod: offer.MonthPeriod, BackupPhone: "998911112233"})
	if err != nil {
		return err
	}
	if v.PhoneCallRequired {
		if _, err := c.Sandbox.CompleteVerification(ctx, id); err != nil {
			return err
		}
	}
	if _, err := c.Applications.Issue(ctx, id, person); err != nil {
		return err
	}
	if app, err = until(ctx, func() (*client.Application, bool, error) {
		a, err := c.Applications.Info(ctx, id)
		return a, err == nil && a.Status != client.ApplicationInProgress, err
	}); err != nil {
		return err
	}
	if app.Status != client.ApplicationCompleted {
		return fmt.Errorf("issuance: %s at %s/%s: %s", app.Status, app.LastTask.Name, app.LastTask.Status, app.LastTask.ErrorMessage)
	}

	// Core banking gives the loan its number about 30 minutes after issuance: move the
	// sandbox clock past that.
	if _, err := c.Sandbox.AdvanceClock(ctx, 31*time.Minute); err != nil {
		return err
	}
	loan, err := until(ctx, func() (*client.Loan, bool, error) {
		l, err := c.Loans.Info(ctx, id)
		return l, err == nil && l.LoanID != "", err
	})
	if err != nil {
		return err
	}
	schedule, err := c.Loans.Schedule(ctx, loan.LoanID)
	if err != nil {
		return err
	}
	fmt.Printf("loan %s: %d tiyin at %s%%, %d instalments, the first %d tiyin on %s\n", loan.LoanID, loan.Amount, loan.Rate,
		len(schedule), schedule[0].TotalRepaymentAmount, schedule[0].PaymentDate.Format(time.DateOnly))

	quote, err := c.Repayments.Check(ctx, loan.LoanID)
	if err != nil {
		return err
	}
	paid, err := c.Repayments.Pay(ctx, client.PayRepaymentParams{LoanID: loan.LoanID, RequestID: quote.RequestID,
		PaymentType: client.PaymentEarly, DebitID: "EXAMPLE-" + uuid.NewString(), Amount: 50_000_000,
		ProcessingType: client.ProcessingUzcard})
	if err != nil {
		return err
	}
	fmt.Printf("paid 50000000 tiyin of %d: %s\n", quote.MaxAmount, paid.Status)
	return nil
}

// until asks again every half second until done says so, or ctx ends.
func until[T any](ctx context.Context, ask func() (T, bool, error)) (T, error) {
	for {
		v, done, err := ask()
		if err != nil || done {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
