package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/client"
)

// TestTheGoClientSpeaksToTiyin: the typed client partners import registers an application,
// reads it back, and reads a refusal's code, against the built binary.
func TestTheGoClientSpeaksToTiyin(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	c, err := client.NewClientWithResponses(s.url, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+s.key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	date := func(v string) openapi_types.Date {
		var d openapi_types.Date
		if err := d.UnmarshalText([]byte(v)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	reg, err := c.RegisterApplicationWithResponse(ctx, client.RegisterApplicationRequest{Id: uuid.New(), Params: client.RegisterApplicationParams{
		ExternalId: uuid.New(), IsAgreementAccepted: true, PhoneNumber: "998901234567",
		ClientData: client.ClientData{Pinfl: "31234567890123", LastName: "Karimov", FirstName: "Aziz", BirthDate: date("1990-05-17"),
			Phone: "998901234567", Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"},
			Document: client.Document{Type: client.PASSPORT, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
				IssuedDate: date("2020-01-10"), ExpiryDate: date("2035-01-09")}}}})
	if err != nil || reg.JSON200 == nil {
		t.Fatalf("register: %v %s", err, reg.Body)
	}
	app := reg.JSON200.Result.ApplicationId
	info, err := c.GetApplicationWithResponse(ctx, client.GetApplicationRequest{Id: uuid.New(), Params: client.GetApplicationParams{ApplicationId: app}})
	if err != nil || info.JSON200 == nil || info.JSON200.Result.ApplicationId != app {
		t.Fatalf("info: %v %s", err, info.Body)
	}
	unknown, err := c.GetApplicationWithResponse(ctx, client.GetApplicationRequest{Id: uuid.New(), Params: client.GetApplicationParams{ApplicationId: uuid.New()}})
	if err != nil || unknown.JSON4XX == nil || unknown.JSON4XX.Error.Code != 1001 {
		t.Fatalf("an unknown application: %v %s", err, unknown.Body)
	}
}
