package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

func (h *harness) attach(t *testing.T, pan, network string) (cardID, code string) {
	t.Helper()
	a := h.call(t, "/cards/attach", map[string]any{"pan": pan, "expiry": "3012", "processingType": network, "phoneNumber": "998901234567"})
	var r struct{ CardID string }
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("attach: %s", a.Raw)
	}
	return r.CardID, h.lastCode(t)
}

func (h *harness) lastCode(t *testing.T) string {
	t.Helper()
	a := h.call(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"})
	var r struct{ Messages []struct{ Code, Text string } }
	if err := json.Unmarshal(a.Result, &r); err != nil || len(r.Messages) == 0 {
		t.Fatalf("outbox: %s", a.Raw)
	}
	return r.Messages[0].Code
}

func (h *harness) cardStatus(t *testing.T, cardID string) string {
	t.Helper()
	a := h.call(t, "/cards/status", map[string]any{"cardId": cardID})
	var r struct{ Status string }
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("status: %s", a.Raw)
	}
	return r.Status
}

func (h *harness) putStatus(t *testing.T, key, cardID, status string) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": map[string]any{"cardId": cardID, "status": status, "reason": "client asked"}})
	return h.raw(t, http.MethodPut, "/cards/status", key, "application/json", body)
}

func TestAttachAndConfirmACard(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, code := h.attach(t, "8600123456789012", "UZCARD")
	if len(code) != 6 || h.cardStatus(t, id) != "UNVERIFIED" {
		t.Fatalf("code %q, status %s", code, h.cardStatus(t, id))
	}
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": wrong})
	if a.code() != 1009 || !strings.Contains(a.Error.Message, "2 attempts left") {
		t.Fatalf("wrong code: %s", a.Raw)
	}
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": code}); a.code() != 0 {
		t.Fatalf("confirm: %s", a.Raw)
	}
	if h.cardStatus(t, id) != "ACTIVE" {
		t.Fatal("not active")
	}
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": code}); a.code() != 1010 {
		t.Fatalf("double confirm: %s", a.Raw)
	}
	if a := h.call(t, "/cards/attach", map[string]any{"pan": "8600123456789012", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"}); a.code() != 1010 {
		t.Fatalf("attach an attached card: %s", a.Raw)
	}
	// Status changes by the table; the same status is a no-op.
	for _, step := range []struct {
		status string
		code   int
	}{{"BLOCKED", 0}, {"BLOCKED", 0}, {"UNVERIFIED", 1022}, {"ACTIVE", 0}, {"CLOSED", 0}, {"ACTIVE", 1022}, {"DELETED", 0}, {"CLOSED", 1022}} {
		if a := h.putStatus(t, h.key, id, step.status); a.code() != step.code {
			t.Fatalf("→ %s: %s", step.status, a.Raw)
		}
	}
	if a := h.putStatus(t, h.otherKey, id, "BLOCKED"); a.code() != 1007 {
		t.Fatalf("foreign card: %s", a.Raw)
	}
}

func TestSMSCodeLimits(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, _ := h.attach(t, "9860123456789012", "HUMO")
	// Again within a minute: code 7; after a minute: the same card, a new code.
	if a := h.call(t, "/cards/attach", map[string]any{"pan": "9860123456789012", "expiry": "3012", "processingType": "HUMO", "phoneNumber": "998901234567"}); a.code() != 7 {
		t.Fatalf("resend within a minute: %s", a.Raw)
	}
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "61s"})
	again, newCode := h.attach(t, "9860123456789012", "HUMO")
	if again != id {
		t.Fatalf("a second card %s for the same PAN", again)
	}
	// Three wrong codes, then even the right one is 1008.
	wrong := "000000"
	if newCode == wrong {
		wrong = "111111"
	}
	for _, want := range []string{"2 attempts left", "1 attempts left", "0 attempts left"} {
		if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": wrong}); a.code() != 1009 || !strings.Contains(a.Error.Message, want) {
			t.Fatalf("want %q: %s", want, a.Raw)
		}
	}
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": newCode}); a.code() != 1008 {
		t.Fatalf("fourth code: %s", a.Raw)
	}
	// A fresh code expires after 3 minutes.
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "61s"})
	_, fresh := h.attach(t, "9860123456789012", "HUMO")
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "3m1s"})
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": fresh}); a.code() != 1008 {
		t.Fatalf("after 3:01: %s", a.Raw)
	}
}

func TestCardRefusals(t *testing.T) {
	t.Parallel()
	h := setup(t)
	attach := func(pan, expiry, network string) map[string]any {
		return map[string]any{"pan": pan, "expiry": expiry, "processingType": network, "phoneNumber": "998901234567"}
	}
	tests := []struct {
		name   string
		path   string
		params map[string]any
		code   int
	}{
		{"SMS cannot be sent", "/cards/attach", attach("8600000000000006", "3012", "UZCARD"), 1006},
		{"blocked at the network", "/cards/attach", attach("9860000000000002", "3012", "HUMO"), 1023},
		{"PAN not of the network", "/cards/attach", attach("8600123456789012", "3012", "HUMO"), 1023},
		{"PAN of 15 digits", "/cards/attach", attach("860012345678901", "3012", "UZCARD"), 4},
		{"PAN of 17 digits", "/cards/attach", attach("86001234567890123", "3012", "UZCARD"), 4},
		{"PAN with spaces", "/cards/attach", attach("8600 1234 5678 9012", "3012", "UZCARD"), 4},
		{"expiry month 13", "/cards/attach", attach("8600123456789012", "2613", "UZCARD"), 4},
		{"expiry in the past", "/cards/attach", attach("8600123456789012", "1301", "UZCARD"), 4},
		{"processingType VISA", "/cards/attach", attach("8600123456789012", "3012", "VISA"), 4},
		{"otp of 5 digits", "/cards/attach/confirm", map[string]any{"cardId": uuid.NewString(), "otpCode": "12345"}, 4},
		{"otp with letters", "/cards/attach/confirm", map[string]any{"cardId": uuid.NewString(), "otpCode": "12a456"}, 4},
		{"confirm unknown card", "/cards/attach/confirm", map[string]any{"cardId": uuid.NewString(), "otpCode": "123456"}, 1007},
		{"status unknown card", "/cards/status", map[string]any{"cardId": uuid.NewString()}, 1007},
		{"order info unknown", "/cards/order/info", map[string]any{"orderId": uuid.NewString()}, 1021},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a := h.call(t, tt.path, tt.params); a.code() != tt.code {
				t.Fatalf("got %s", a.Raw)
			}
		})
	}
	id, _ := h.attach(t, "8600123456789012", "UZCARD")
	body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": map[string]any{"cardId": id, "status": "LOST", "reason": ""}})
	if a := h.raw(t, http.MethodPut, "/cards/status", h.key, "application/json", body); a.code() != 4 ||
		!strings.Contains(a.Error.Message, "params.status") || !strings.Contains(a.Error.Message, "params.reason") {
		t.Fatalf("status LOST, empty reason: %s", a.Raw)
	}
	if a := h.callAs(t, h.otherKey, uuid.NewString(), "/cards/status", map[string]any{"cardId": id}); a.code() != 1007 {
		t.Fatalf("foreign card: %s", a.Raw)
	}
}

func TestConcurrentConfirmsOfOneCard(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, code := h.attach(t, "8600123456789012", "UZCARD")
	codes := make([]int, 4)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i] = h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": code}).code()
		})
	}
	wg.Wait()
	exactlyOneSucceeds(t, codes, 1010)
}

func TestCardOrder(t *testing.T) {
	t.Parallel()
	h := setup(t)
	order := func(ext, pinfl string) string {
		cd := clientData()
		cd["pinfl"] = pinfl
		a := h.call(t, "/cards/order", map[string]any{"externalId": ext, "phoneNumber": "998901234567", "clientData": cd,
			"privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})
		var r struct{ OrderID, ExternalID string }
		if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 || r.ExternalID != ext {
			t.Fatalf("order: %s", a.Raw)
		}
		return r.OrderID
	}
	type info struct {
		Order struct{ Status, Description string }
		Card  *struct{ ID, Pan, Expiry string }
	}
	read := func(id string) info {
		var r info
		if a := h.call(t, "/cards/order/info", map[string]any{"orderId": id}); json.Unmarshal(a.Result, &r) != nil || a.code() != 0 {
			t.Fatalf("info: %s", a.Raw)
		}
		return r
	}
	first := order("ORD-1", "31234567890123")
	if r := read(first); r.Order.Status != "NEW" || r.Card != nil {
		t.Fatalf("new order %+v", r)
	}
	h.reconcile(t) // submitted
	if r := read(first); r.Order.Status != "IN_PROGRESS" || r.Card != nil {
		t.Fatalf("submitted %+v", r)
	}
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "3s"})
	h.reconcile(t) // issued
	r := read(first)
	if r.Order.Status != "COMPLETED" || r.Card == nil || !strings.Contains(r.Card.Pan, "******") || len(r.Card.Expiry) != 4 {
		t.Fatalf("completed %+v", r)
	}
	oldCard := r.Card.ID
	// A second order for the same client replaces the card.
	second := order("ORD-2", "31234567890123")
	h.reconcile(t)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "3s"})
	h.reconcile(t)
	if r := read(second); r.Order.Status != "COMPLETED" || r.Card == nil || r.Card.ID == oldCard {
		t.Fatalf("replacement %+v", r)
	}
	if s := h.cardStatus(t, oldCard); s != "CLOSED" {
		t.Fatalf("the replaced card is %s", s)
	}
	declined := order("ORD-3", "31234567895555")
	h.reconcile(t)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "3s"})
	h.reconcile(t)
	if r := read(declined); r.Order.Status != "CANCELED" || r.Card != nil || r.Order.Description == "" {
		t.Fatalf("declined %+v", r)
	}
	cd := clientData()
	if a := h.call(t, "/cards/order", map[string]any{"externalId": "ORD-1", "phoneNumber": "998901234567", "clientData": cd,
		"privacyPolicyAccepted": true, "termsAndConditionsAccepted": true}); a.code() != 1011 {
		t.Fatalf("externalId reused: %s", a.Raw)
	}
	if a := h.call(t, "/cards/order", map[string]any{"externalId": "ORD-9", "phoneNumber": "998901234567", "clientData": cd,
		"privacyPolicyAccepted": false, "termsAndConditionsAccepted": true}); a.code() != 4 {
		t.Fatalf("consent false: %s", a.Raw)
	}
	if a := h.callAs(t, h.otherKey, uuid.NewString(), "/cards/order/info", map[string]any{"orderId": first}); a.code() != 1021 {
		t.Fatalf("foreign order: %s", a.Raw)
	}
}

// TestNoFullPANOrCodeLeaves scans every answer and every log line of a card's life for the full
// card number and the SMS code.
func TestNoFullPANOrCodeLeaves(t *testing.T) {
	t.Parallel()
	h := setup(t)
	const pan = "8600555566667777"
	var answers []string
	id, code := h.attach(t, pan, "UZCARD")
	for _, a := range []answer{
		h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": "999999"}),
		h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": code}),
		h.call(t, "/cards/status", map[string]any{"cardId": id}),
		h.putStatus(t, h.key, id, "BLOCKED"),
		h.call(t, "/cards/attach", map[string]any{"pan": pan, "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"}),
	} {
		answers = append(answers, string(a.Raw))
	}
	for _, e := range h.logs.All() {
		answers = append(answers, fmt.Sprint(e.Message, e.ContextMap()))
	}
	codeToken := regexp.MustCompile(`\b` + code + `\b`)
	for _, line := range answers {
		if strings.Contains(line, pan) || (code != "999999" && codeToken.MatchString(line)) {
			t.Fatalf("a full PAN or the SMS code left tiyin: %s", line)
		}
	}
}

func TestTransferToACardByCardID(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	id, code := h.attach(t, "9860123456789012", "HUMO")
	p := transferParams(app, "", "HUMO", 400_000)
	delete(p, "pan")
	p["cardId"] = id
	if a := h.call(t, "/transfers/account-to-card/create", p); a.code() != 1023 {
		t.Fatalf("to an UNVERIFIED card: %s", a.Raw)
	}
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": id, "otpCode": code}); a.code() != 0 {
		t.Fatalf("confirm: %s", a.Raw)
	}
	p["externalId"] = uuid.NewString()
	tr := h.createTransfer(t, p)
	a := h.call(t, "/transfers/account-to-card/confirm", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Raw), `"SUCCESS"`) {
		t.Fatalf("confirm transfer: %s", a.Raw)
	}
	p["externalId"], p["receiverCardType"] = uuid.NewString(), "UZCARD"
	if a := h.call(t, "/transfers/account-to-card/create", p); a.code() != 1023 {
		t.Fatalf("network not the card's: %s", a.Raw)
	}
	p["receiverCardType"], p["pan"] = "HUMO", "9860123456789012"
	if a := h.call(t, "/transfers/account-to-card/create", p); a.code() != 4 {
		t.Fatalf("both pan and cardId: %s", a.Raw)
	}
	if a := h.callAs(t, h.otherKey, uuid.NewString(), "/transfers/account-to-card/create", map[string]any{"externalId": uuid.NewString(),
		"applicationId": app, "cardId": id, "receiverCardType": "HUMO", "cardHolderName": "X", "amount": 1}); a.code() != 1001 && a.code() != 1007 {
		t.Fatalf("another partner: %s", a.Raw)
	}
	h.checkLedger(t)
}

// TestEachPartnerReadsItsOwnSMSOutbox: partner B asks the sandbox outbox for the phone to
// which partner A's attach sent a code, and sees nothing of it; A sees its message.
func TestEachPartnerReadsItsOwnSMSOutbox(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, code := h.attach(t, "8600123456789013", "UZCARD")
	other := h.callAs(t, h.otherKey, uuid.NewString(), "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"})
	if other.code() != 0 || string(other.Result) != `{"messages":[]}` || strings.Contains(string(other.Raw), code) {
		t.Fatalf("another partner's outbox: %s", other.Raw)
	}
	if own := h.lastCode(t); own != code {
		t.Fatalf("own outbox: code %q, want %q", own, code)
	}
}

// TestAttachCodesAreCappedADay (issue 46, finding 4): attach sends a card (PAN) at most 5
// codes a Tashkent day and a phone at most 10, across partners, and a partner's attaches at
// most their cap (13 here); the next is code 7 (429) naming the cap and when it resets, and
// counts nothing. The next day on the partner's clock sends again.
func TestAttachCodesAreCappedADay(t *testing.T) {
	t.Parallel()
	h := setupWith(t, true, func(s *harnessSetup) { s.cfg.AttachCodeCaps = domain.AttachCodeCaps{PerPartner: 13} })
	attach := func(key, pan, phone string) answer {
		t.Helper()
		a := h.callAs(t, key, uuid.NewString(), "/cards/attach", map[string]any{"pan": pan, "expiry": "3012", "processingType": "UZCARD", "phoneNumber": phone})
		h.callAs(t, key, uuid.NewString(), "/sandbox/clock/advance", map[string]any{"duration": "61s"})
		return a
	}
	// Both partners' clocks start an hour into the next Tashkent day, so that no attach below
	// crosses midnight.
	now := time.Now().In(domain.Tashkent)
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, domain.Tashkent)
	for _, key := range []string{h.key, h.otherKey} {
		h.callAs(t, key, uuid.NewString(), "/sandbox/clock/advance", map[string]any{"duration": (midnight.Sub(now) + time.Hour).String()})
	}
	resets := midnight.AddDate(0, 0, 1).Format(time.RFC3339)
	refused := func(a answer, scope string) {
		t.Helper()
		if a.code() != 7 || a.Status != http.StatusTooManyRequests || !strings.Contains(a.Error.Message, scope) || !strings.Contains(a.Error.Message, resets) {
			t.Fatalf("want code 7 naming the %s cap and %s: %s", scope, resets, a.Raw)
		}
	}
	for i := range 5 {
		if a := attach(h.key, "8600111111111111", "998901111111"); a.code() != 0 {
			t.Fatalf("code %d of the card: %s", i+1, a.Raw)
		}
	}
	refused(attach(h.key, "8600111111111111", "998901111111"), "card")
	refused(attach(h.otherKey, "8600111111111111", "998901111111"), "card")
	for i := range 5 {
		if a := attach(h.key, "8600222222222222", "998901111111"); a.code() != 0 {
			t.Fatalf("code %d of the second card: %s", i+1, a.Raw)
		}
	}
	refused(attach(h.key, "8600333333333333", "998901111111"), "phone")
	for i, pan := range []string{"8600333333333333", "8600444444444444", "8600555555555555"} {
		if a := attach(h.key, pan, fmt.Sprintf("99890333333%d", i)); a.code() != 0 {
			t.Fatalf("another card to another phone, code %d of the partner: %s", 11+i, a.Raw)
		}
	}
	refused(attach(h.key, "8600666666666666", "998904444444"), "partner")
	if a := attach(h.otherKey, "8600666666666666", "998904444444"); a.code() != 0 {
		t.Fatalf("another partner's attach: %s", a.Raw)
	}
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "24h"})
	if a := attach(h.key, "8600111111111111", "998901111111"); a.code() != 0 {
		t.Fatalf("the next day: %s", a.Raw)
	}
}
