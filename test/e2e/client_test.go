package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/client"
)

// TestTheGoClientSpeaksToTiyin: the Go client partners import registers an application,
// reads it back with its pre-scoring offer, takes the offer at its exact percent (83.06, which
// a float32 would not carry), and reads a refusal as a *client.Error matched by its code,
// against the built binary.
func TestTheGoClientSpeaksToTiyin(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_SANDBOX_SCORING_PERCENT=83.06")
	c, err := client.New(s.url, s.key)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg, err := c.Applications.Register(ctx, client.RegisterApplicationParams{ExternalID: uuid.New(), AgreementAccepted: true,
		PhoneNumber: "998901234567", ClientData: client.ClientData{PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
			BirthDate: client.NewDate(1990, time.May, 17), Phone: "998901234567",
			Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"},
			Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
				IssuedDate: client.NewDate(2020, time.January, 10), ExpiryDate: client.NewDate(2035, time.January, 9)}}})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	var info *client.Application
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err = c.Applications.Info(ctx, reg.ApplicationID)
		if err != nil || info.Status != client.ApplicationNew && info.Status != client.ApplicationInProgress || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil || info.ApplicationID != reg.ApplicationID || info.Status != client.ApplicationPending || info.PreScoreResult == nil ||
		info.PreScoreResult.Percent != client.MustParsePercent("83.06") || info.LastTask.Name != client.TaskPreScoringInfo {
		t.Fatalf("info: %+v, %v", info, err)
	}
	v, err := c.Applications.Verify(ctx, client.VerifyApplicationParams{ApplicationID: reg.ApplicationID, Amount: 300_000_000,
		Percent: info.PreScoreResult.Percent, MonthPeriod: 6, BackupPhone: "998911112233"})
	if err != nil || v.PhoneCallRequired {
		t.Fatalf("verify at the offer's percent: %+v, %v", v, err)
	}
	_, err = c.Applications.Info(ctx, uuid.New())
	var e *client.Error
	if !errors.Is(err, client.CodeApplicationNotFound) || !errors.As(err, &e) || e.Status != 404 || e.RequestID == "" {
		t.Fatalf("an unknown application: %v", err)
	}
}
