package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// clientDataValues are values of clientData(t, "31234567890123") that must never be readable
// in a stored row.
var clientDataValues = []string{"31234567890123", "RINBOYEV", "Bunyodkor", "aziz@example.uz", "Chilonzor"}

func rawColumn(t *testing.T, db *store.DB, table string, id uuid.UUID) string {
	t.Helper()
	var v string
	if err := db.Gorm.Raw("SELECT client_data FROM "+table+" WHERE id = ?", id).Scan(&v).Error; err != nil {
		t.Fatal(err)
	}
	return v
}

func TestClientDataIsSealedAtRest(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.newApplication(t, s.partner, uuid.New())
		b := s.newApplication(t, s.partner, uuid.New())
		for _, x := range []*domain.Application{a, b} {
			if err := s.apps.Create(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		raw := rawColumn(t, s.db, "applications", a.ID())
		if keyring.KeyOf(raw) != s.db.Sealer.KeyID() {
			t.Fatalf("clientData stored as %.40q…, not sealed under the current key", raw)
		}
		for _, v := range clientDataValues {
			if strings.Contains(raw, v) {
				t.Fatalf("the stored row shows %q", v)
			}
		}
		if got := must(s.apps.Get(ctx, a.ID())); got.ClientData() != a.ClientData() {
			t.Fatal("clientData does not survive sealing")
		}

		// A sealed value copied to another row does not open there: the read fails, it does
		// not answer another client's data.
		s.db.Gorm.Exec("UPDATE applications SET client_data = ? WHERE id = ?", raw, b.ID())
		if _, err := s.apps.Get(ctx, b.ID()); err == nil || !strings.Contains(err.Error(), "another row") {
			t.Fatalf("a moved clientData opened: %v", err)
		}

		// A row written before sealing (plain JSON) is still read.
		legacy := `{"pinfl":"31234567890123","inn":"123456789","lastName":"O'RINBOYEV","firstName":"AZIZ",` +
			`"middleName":"","birthDate":"1990-01-09","gender":"M","documentType":"PASSPORT","documentSeries":"AA",` +
			`"documentNumber":"1234567","issuedBy":"IIV","issuedDate":"2020-01-09","expiryDate":"2030-01-09",` +
			`"region":"Toshkent","district":"Chilonzor","address":"Bunyodkor 1","phone":"998901234567"}`
		s.db.Gorm.Exec("UPDATE applications SET client_data = ? WHERE id = ?", legacy, b.ID())
		if got, err := s.apps.Get(ctx, b.ID()); err != nil || got.ClientData().PINFL() != "31234567890123" {
			t.Fatalf("a plain legacy row: %v", err)
		}

		orders := store.NewCardOrderRepository(s.db)
		o, err := domain.NewCardOrder(domain.NewCardOrderParams{ID: uuid.New(), PartnerID: s.partner.ID, ExternalID: "order-1",
			Phone: a.Phone(), ClientData: a.ClientData(), Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		if err := orders.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		raw = rawColumn(t, s.db, "card_orders", o.ID())
		for _, v := range clientDataValues {
			if strings.Contains(raw, v) {
				t.Fatalf("the stored card order shows %q", v)
			}
		}
		if got := must(orders.Get(ctx, o.ID())); got.ClientData() != o.ClientData() {
			t.Fatal("the order's clientData does not survive sealing")
		}
	})
}

func TestResealMovesEverythingToTheNewKey(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.newApplication(t, s.partner, uuid.New())
		if err := s.apps.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		sealed, _ := s.db.Sealer.Seal([]byte("whsec_x"), "")
		s.db.Gorm.Exec("UPDATE partners SET webhook_url = 'https://acme.example/h', webhook_secret = ? WHERE id = ?", sealed, s.partner.ID)
		card := s.newCard(t, "hash-reseal")
		if err := s.cards.Create(ctx, card); err != nil {
			t.Fatal(err)
		}
		s.db.Gorm.Exec("UPDATE cards SET pinfl = '31234567890123' WHERE id = ?", card.ID())

		old := s.db.Sealer
		newKey := []byte("a-brand-new-data-key-0123456789a")
		s.db.Sealer = must(keyring.New(newKey, []byte("tiyin-test-data-key-0123456789ab")))
		if _, err := s.apps.Get(ctx, a.ID()); err != nil {
			t.Fatalf("the retired key no longer opens: %v", err)
		}
		rep, err := s.db.Reseal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ClientData != 1 || rep.PINFLs != 1 || rep.WebhookSecrets != 1 {
			t.Fatalf("resealed %+v", rep)
		}
		if again := must(s.db.Reseal(ctx)); again != (store.ResealReport{}) {
			t.Fatalf("a second run resealed %+v", again)
		}
		s.db.Sealer = must(keyring.New(newKey)) // the old key dropped
		if got, err := s.apps.Get(ctx, a.ID()); err != nil || got.ClientData() != a.ClientData() {
			t.Fatalf("after reseal, without the old key: %v", err)
		}
		if keyring.KeyOf(rawColumn(t, s.db, "applications", a.ID())) == old.KeyID() {
			t.Fatal("still sealed under the old key")
		}
		var pinfl string
		s.db.Gorm.Raw("SELECT pinfl FROM cards WHERE id = ?", card.ID()).Scan(&pinfl)
		if pinfl == "31234567890123" || len(pinfl) != 64 {
			t.Fatalf("card pinfl stored as %q", pinfl)
		}
	})
}
