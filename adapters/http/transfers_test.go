package http_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
)

// issued returns an application whose loan of amount tiyin is issued.
func (h *harness) issued(t *testing.T, amount int64) string {
	t.Helper()
	app := h.register(t)
	if a := h.call(t, "/microloans/applications/verify", verifyParams(app, amount)); a.code() != 0 {
		t.Fatalf("verify: %s", a.Raw)
	}
	if a := h.call(t, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": clientData()}); a.code() != 0 {
		t.Fatalf("issue: %s", a.Raw)
	}
	if status, _ := h.info(t, app); status != "COMPLETED" {
		t.Fatalf("not issued: %s", status)
	}
	return app
}

func transferParams(app, pan, network string, amount int64) map[string]any {
	return map[string]any{"externalId": uuid.NewString(), "applicationId": app, "pan": pan,
		"receiverCardType": network, "cardHolderName": "AZIZ KARIMOV", "amount": amount}
}

type transfer struct{ ext, id string }

func (h *harness) createTransfer(t *testing.T, p map[string]any) transfer {
	t.Helper()
	a := h.call(t, "/transfers/account-to-card/create", p)
	var r struct{ TransactionID string }
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("create: %s", a.Raw)
	}
	return transfer{ext: p["externalId"].(string), id: r.TransactionID}
}

func (tr transfer) ref() map[string]any {
	return map[string]any{"externalId": tr.ext, "transactionId": tr.id}
}

func (h *harness) checkLedger(t *testing.T) {
	t.Helper()
	c, err := h.app.Operations.CheckLedger.Handle(context.Background())
	if err != nil || !c.OK() {
		t.Fatalf("ledger check: %+v %v", c, err)
	}
}

func TestTransferToACard(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 400_000))
	a := h.call(t, "/transfers/check-status", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Result), `"status":"NEW"`) {
		t.Fatalf("check NEW: %s", a.Raw)
	}
	a = h.call(t, "/transfers/account-to-card/confirm", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Result), `"status":"SUCCESS"`) || !strings.Contains(string(a.Result), tr.ext) {
		t.Fatalf("confirm: %s", a.Raw)
	}
	a = h.call(t, "/transfers/check-status", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Result), `"status":"SUCCESS"`) || !strings.Contains(string(a.Result), "+05:00") {
		t.Fatalf("check SUCCESS: %s", a.Raw)
	}
	if a := h.call(t, "/transfers/account-to-card/confirm", tr.ref()); a.code() != 1016 || a.Status != 409 {
		t.Fatalf("confirm twice: %s", a.Raw)
	}
	// 600 000 left: 600 001 is refused, 600 000 fits.
	if a := h.call(t, "/transfers/account-to-card/create", transferParams(app, "9860123456789012", "HUMO", 600_001)); a.code() != 1014 || a.Status != 422 {
		t.Fatalf("above the balance: %s", a.Raw)
	}
	h.createTransfer(t, transferParams(app, "9860123456789012", "HUMO", 600_000))
	h.checkLedger(t)
}

func TestRefusedCreditReleasesTheHold(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	tr := h.createTransfer(t, transferParams(app, sandbox.PANCreditFails, "UZCARD", 1_000_000))
	a := h.call(t, "/transfers/account-to-card/confirm", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Result), `"status":"FAILED"`) || !strings.Contains(string(a.Result), "CARD_ACCOUNT_CLOSED") {
		t.Fatalf("confirm: %s", a.Raw)
	}
	// The whole amount is available again.
	h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1_000_000))
	h.checkLedger(t)
}

func TestUnconfirmedTransferExpires(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1_000_000))
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "16m"})
	if a := h.call(t, "/transfers/check-status", tr.ref()); !strings.Contains(string(a.Result), `"status":"EXPIRED"`) {
		t.Fatalf("check: %s", a.Raw)
	}
	if a := h.call(t, "/transfers/account-to-card/confirm", tr.ref()); a.code() != 1016 || !strings.Contains(a.Error.Message, "EXPIRED") {
		t.Fatalf("confirm expired: %s", a.Raw)
	}
	// The hold was released: the whole amount can go again.
	h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1_000_000))
	h.checkLedger(t)
}

func TestTransferRefusals(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	pending := h.register(t)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1000))
	create := "/transfers/account-to-card/create"
	withParam := func(k string, v any) map[string]any {
		p := transferParams(app, "8600123456789012", "UZCARD", 1000)
		p[k] = v
		return p
	}
	dupExt := transferParams(app, "8600123456789012", "UZCARD", 1000)
	dupExt["externalId"] = tr.ext
	tests := []struct {
		name   string
		key    string
		path   string
		params map[string]any
		code   int
		msg    string
	}{
		{"application not completed", h.key, create, transferParams(pending, "8600123456789012", "UZCARD", 1000), 1013, "application status is PENDING"},
		{"unknown application", h.key, create, transferParams(uuid.NewString(), "8600123456789012", "UZCARD", 1000), 1001, "application not found"},
		{"another partner's application", h.otherKey, create, transferParams(app, "8600123456789012", "UZCARD", 1000), 1001, "application not found"},
		{"card of another network", h.key, create, withParam("receiverCardType", "HUMO"), 1023, "860012******9012 is not a HUMO card"},
		{"externalId reused", h.key, create, dupExt, 1011, "externalId already used"},
		{"amount 0", h.key, create, withParam("amount", 0), 4, "params.amount: must be a positive whole number"},
		{"negative amount", h.key, create, withParam("amount", -5), 4, "params.amount: must be a positive whole number"},
		{"PAN of 15 digits", h.key, create, withParam("pan", "860012345678901"), 4, "params.pan: must be 16 digits"},
		{"PAN with spaces", h.key, create, withParam("pan", "8600 1234 5678 9012"), 4, "params.pan: must be 16 digits"},
		{"network VISA", h.key, create, withParam("receiverCardType", "VISA"), 4, "params.receiverCardType: must be one of UZCARD, HUMO"},
		{"empty card holder", h.key, create, withParam("cardHolderName", ""), 4, "params.cardHolderName: must be 1 to 100 characters"},
		{"mismatched externalId", h.key, "/transfers/check-status", map[string]any{"externalId": uuid.NewString(), "transactionId": tr.id}, 1015, "transfer not found"},
		{"another partner's transfer", h.otherKey, "/transfers/account-to-card/confirm", tr.ref(), 1015, "transfer not found"},
		{"unknown transfer", h.key, "/transfers/account-to-card/confirm", map[string]any{"externalId": tr.ext, "transactionId": uuid.NewString()}, 1015, "transfer not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.callAs(t, tt.key, uuid.NewString(), tt.path, tt.params)
			if a.code() != tt.code || !strings.Contains(a.Error.Message, tt.msg) {
				t.Fatalf("got %s", a.Raw)
			}
			if strings.Contains(string(a.Raw), "8600123456789012") {
				t.Fatalf("answer carries a full PAN: %s", a.Raw)
			}
		})
	}
}

func TestConcurrentTransfersNeverOverdraw(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	const n = 10
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = h.call(t, "/transfers/account-to-card/create", transferParams(app, "8600123456789012", "UZCARD", 150_000)).code()
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, c := range codes {
		switch c {
		case 0:
			ok++
		case 1014:
			refused++
		}
	}
	if ok != 6 || refused != 4 {
		t.Fatalf("codes %v", codes)
	}
	h.checkLedger(t)
}
