package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// rowCounts counts the rows of every table a request could write.
func (h *harness) rowCounts(t testing.TB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"applications", "loans", "transfers", "repayments", "cards", "card_orders", "events",
		"idempotency_records", "ledger_postings", "ledger_entries", "ledger_accounts", "sandbox_sms"} {
		var n int64
		if err := h.db.Gorm.Table(table).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// envelope builds a request body around params given as JSON text.
func envelope(params string) []byte {
	return []byte(fmt.Sprintf(`{"id":%q,"params":%s}`, uuid.NewString(), params))
}

// with returns p's JSON with one field replaced by raw JSON text.
func with(p map[string]any, field, raw string) string {
	b, _ := json.Marshal(p)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	m[field] = json.RawMessage(raw)
	b, _ = json.Marshal(m)
	return string(b)
}

// withClient returns the register params' JSON with one clientData field replaced.
func withClient(field, raw string) string {
	p := registerParams()
	b, _ := json.Marshal(p["clientData"])
	var cd map[string]json.RawMessage
	_ = json.Unmarshal(b, &cd)
	cd[field] = json.RawMessage(raw)
	cdb, _ := json.Marshal(cd)
	return with(p, "clientData", string(cdb))
}

// TestHostileRequests: each request is answered with a clean envelope error of the right code,
// validated against the API document, and leaves every table as it was.
func TestHostileRequests(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 100_000_000)
	register, verify := "/microloans/applications/pre-scoring/register", "/microloans/applications/verify"
	transfer, attach := "/transfers/account-to-card/create", "/cards/attach"
	tp := transferParams(app, "8600123456789012", "UZCARD", 1_000_000)
	ap := map[string]any{"pan": "8600123456789012", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"}
	vp := verifyParams(app, 100_000_000)
	deep := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	tests := []struct {
		name, path string
		body       []byte
		want       int
	}{
		{"amount above int64", verify, envelope(with(vp, "amount", "9223372036854775808")), 4},
		{"amount 1e30", verify, envelope(with(vp, "amount", "1e30")), 4},
		{"amount as exponent", transfer, envelope(with(tp, "amount", "1e3")), 4},
		{"fractional amount", transfer, envelope(with(tp, "amount", "1.5")), 4},
		{"negative amount", transfer, envelope(with(tp, "amount", "-100")), 4},
		{"zero amount", transfer, envelope(with(tp, "amount", "0")), 4},
		{"amount as the string NaN", transfer, envelope(with(tp, "amount", `"NaN"`)), 4},
		{"percent as the string NaN", verify, envelope(with(vp, "percent", `"NaN"`)), 4},
		{"percent Infinity", verify, envelope(with(vp, "percent", `"Infinity"`)), 4},
		{"percent with 400 digits", verify, envelope(with(vp, "percent", "28."+strings.Repeat("0", 400)+"1")), 4},
		{"object for a string", register, envelope(with(registerParams(), "phoneNumber", `{"$gt":""}`)), 4},
		{"array for a string", attach, envelope(with(ap, "pan", `["8600123456789012"]`)), 4},
		{"object for a number", transfer, envelope(with(tp, "amount", `{"value":1}`)), 4},
		{"boolean for an id", transfer, envelope(with(tp, "applicationId", `true`)), 4},
		{"null for a required field", transfer, envelope(with(tp, "pan", `null`)), 4},
		{"nested 40 deep", register, envelope(with(registerParams(), "clientData", deep)), 5},
		{"10 MB body", register, append(envelope(with(registerParams(), "phoneNumber", `"998901234567"`))[:1],
			[]byte(`"pad":"`+strings.Repeat("x", 10<<20)+`",`+string(envelope(`{}`)[1:]))...), 5},
		{"invalid UTF-8 in a name", register, envelope(withClient("lastName", "\"Kar\xffimov\"")), 5},
		{"duplicate key in params", transfer, envelope(strings.Replace(with(tp, "amount", "1000"), `"amount":1000`, `"amount":1000,"amount":100000000000`, 1)), 5},
		{"duplicate envelope id", register, []byte(`{"id":"` + uuid.NewString() + `","id":"` + uuid.NewString() + `","params":{}}`), 5},
		{"SQL in a name", register, envelope(withClient("lastName", `"Karimov'); DROP TABLE applications;--"`)), 4},
		{"SQL in an id", "/microloans/applications/info", envelope(`{"applicationId":"1' OR '1'='1"}`), 4},
		{"script in a name", register, envelope(withClient("firstName", `"<script>alert(1)</script>"`)), 4},
		{"script in a card holder", transfer, envelope(with(tp, "cardHolderName", `"<img src=x onerror=alert(1)>"`)), 4},
		{"NUL in a name", register, envelope(withClient("lastName", `"Kari\u0000mov"`)), 4},
		{"right-to-left override in a name", register, envelope(withClient("lastName", `"Kari\u202emov"`)), 4},
		{"full-width digits in a PAN", attach, envelope(with(ap, "pan", `"８６００１２３４５６７８９０１２"`)), 4},
		{"60 KB name", register, envelope(withClient("lastName", `"`+strings.Repeat("K", 60<<10)+`"`)), 4},
		{"params as an array", register, envelope(`[1,2]`), 4},
		{"params as a string", register, envelope(`"x"`), 4},
		{"id as a number", register, []byte(`{"id":42,"params":{}}`), 4},
		{"id of 10 000 characters", register, []byte(`{"id":"` + strings.Repeat("a", 10000) + `","params":{}}`), 4},
		{"top-level array", register, []byte(`[{"id":"x"}]`), 5},
		{"trailing garbage", register, append(envelope(`{}`), []byte(`}}}`)...), 5},
		{"two JSON documents", register, append(envelope(`{}`), envelope(`{}`)...), 5},
	}
	before := h.rowCounts(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.raw(t, http.MethodPost, tt.path, h.key, "application/json", tt.body)
			if a.code() != tt.want || a.Error.Message == "" {
				t.Fatalf("got %d (%s), want %d", a.code(), truncate(a.Raw), tt.want)
			}
			for _, leak := range []string{"goroutine", ".go:", "SQL", "sql:", "pq:", "panic", "8600123456789012", "<script>"} {
				if strings.Contains(a.Error.Message, leak) {
					t.Errorf("the message shows %q: %s", leak, a.Error.Message)
				}
			}
		})
	}
	after := h.rowCounts(t)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("%s: %d rows before the hostile requests, %d after", table, n, after[table])
		}
	}
	for _, e := range h.logs.All() {
		if e.Message == "panic" {
			t.Fatalf("a hostile request panicked: %v", e.ContextMap())
		}
	}
	t.Logf("%d hostile requests, every one refused, no table changed", len(tests))
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// FuzzHandlerParams sends arbitrary params to every endpoint: the answer is always an envelope
// the API document allows, never a 500.
func FuzzHandlerParams(f *testing.F) {
	h := setupWith(f, false)
	ops := h.check.Paths()
	slices.Sort(ops)
	seeds := []string{`{}`, `{"applicationId":"` + uuid.NewString() + `"}`, with(registerParams(), "x", "1"),
		with(verifyParams(uuid.NewString(), 1), "x", "1"), `{"amount":-1}`, `{"pan":"8600123456789012"}`, `{"loanId":"1"}`}
	for i := range ops {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, params []byte) {
		method, p, _ := strings.Cut(ops[int(i)%len(ops)], " ")
		body := append(append([]byte(`{"id":"`+uuid.NewString()+`","params":`), params...), '}')
		a := h.raw(t, method, p, h.key, "application/json", body)
		if a.Status >= 500 && a.code() != 10 {
			t.Fatalf("%s %s %q: %s", method, p, params, a.Raw)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(a.Raw), []byte("{")) {
			t.Fatalf("not an envelope: %s", a.Raw)
		}
	})
}
