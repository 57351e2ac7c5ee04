package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
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
		factors := store.NewSecondFactorRepository(s.db)
		op := storedOperator(t, s, "off2")
		if _, err := factors.CreateFactor(ctx, domain.NewTOTPFactor(uuid.New(), op.ID(), "JBSWY3DPEHPK3PXP", t0)); err != nil {
			t.Fatal(err)
		}
		answered := record(s, "reseal")
		answered.Answered, answered.Outcome = true, ports.Outcome{Result: resumed{ID: "reseal", Amount: 7}}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, answered) }); err != nil {
			t.Fatal(err)
		}

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
		if rep.ClientData != 1 || rep.PINFLs != 1 || rep.WebhookSecrets != 1 || rep.SecondFactors != 1 {
			t.Fatalf("resealed %+v", rep)
		}
		if rep.Fields != 2 || rep.Answers != 1 { // the application's phone and the card's; one answer
			t.Fatalf("resealed %d phones and names, %d answers", rep.Fields, rep.Answers)
		}
		var index string
		s.db.Gorm.Raw("SELECT phone_index FROM applications WHERE id = ?", a.ID()).Scan(&index)
		if rep.PhoneIndexes != 1 || index != s.db.PhoneIndexes(a.Phone().String())[0] {
			t.Fatalf("the phone's blind index: %d rewritten, %q stored, want the new key's", rep.PhoneIndexes, index)
		}
		if again := must(s.db.Reseal(ctx)); again != (store.ResealReport{}) {
			t.Fatalf("a second run resealed %+v", again)
		}
		s.db.Sealer = must(keyring.New(newKey)) // the old key dropped
		if rec := must(s.uow.Lookup(ctx, s.partner.ID, "reseal")); decoded[resumed](t, s, rec) != (resumed{ID: "reseal", Amount: 7}) {
			t.Fatalf("the outcome after reseal: %+v", rec.Outcome)
		}
		if got, err := s.apps.Get(ctx, a.ID()); err != nil || got.ClientData() != a.ClientData() {
			t.Fatalf("after reseal, without the old key: %v", err)
		}
		if f, err := factors.Factor(ctx, op.ID(), domain.FactorTOTP); err != nil || f.Secret() != "JBSWY3DPEHPK3PXP" {
			t.Fatalf("the second factor after reseal, without the old key: %v", err)
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

// TestNoNameOrPhoneInTheRawTables: every table that holds a client's phone or name (the
// application, the card, the card order, the transfer's card holder,
// a stored answer) shows neither when read raw, and each value still
// reads back through its repository.
func TestNoNameOrPhoneInTheRawTables(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		s.approve(t, a.ID(), t0)
		card := s.newCard(t, "hash-raw")
		if err := s.cards.Create(ctx, card); err != nil {
			t.Fatal(err)
		}
		orders := store.NewCardOrderRepository(s.db)
		o := must(domain.NewCardOrder(domain.NewCardOrderParams{ID: uuid.New(), PartnerID: s.partner.ID, ExternalID: "order-raw",
			Phone: a.Phone(), ClientData: a.ClientData(), Now: t0}))
		if err := orders.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		l := s.fundedLoan(t, 1_000_000)
		tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
			LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard,
			CardHolder: "AZIZ ORINBOYEV", Amount: 100, CreditToken: "CT-raw", Now: t0})
		if err := s.transfers.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
		rec := record(s, "raw")
		rec.Answered, rec.Outcome = true, ports.Outcome{Result: map[string]string{"clientName": "AZIZ ORINBOYEV KARIMOVICH", "phone": "998901234567"}}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, rec) }); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"applications", "cards", "card_orders", "transfers", "idempotency_records"} {
			raw := rawTable(t, s.db, table)
			for _, v := range []string{"901234567", "911112233", "ORINBOYEV", "rinboyev", "Aziz", "AZIZ"} {
				if strings.Contains(raw, v) {
					t.Errorf("%s shows %q", table, v)
				}
			}
		}
		if got := must(s.apps.Get(ctx, a.ID())); got.Phone() != a.Phone() {
			t.Fatalf("application read back: %+v", got.State())
		}
		if got := must(s.cards.Get(ctx, card.ID())); got.State().Phone != card.State().Phone {
			t.Fatal("card phone read back")
		}
		if got := must(orders.Get(ctx, o.ID())); got.State().Phone != o.State().Phone {
			t.Fatal("card order phone read back")
		}
		if got := must(s.transfers.Get(ctx, tr.ID())); got.State().CardHolder != "AZIZ ORINBOYEV" {
			t.Fatal("card holder read back")
		}
		if got := decoded[map[string]string](t, s, must(s.uow.Lookup(ctx, s.partner.ID, "raw"))); got["clientName"] != "AZIZ ORINBOYEV KARIMOVICH" || got["phone"] != "998901234567" {
			t.Fatalf("outcome read back: %v", got)
		}
	})
}

// rawTable is every value of every row of the table, as text.
func rawTable(t *testing.T, db *store.DB, table string) string {
	t.Helper()
	rows, err := db.SQL.Query("SELECT * FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprint(&out, v, "|")
		}
	}
	return out.String()
}
