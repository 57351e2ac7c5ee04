package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	httpadapter "github.com/tiyin/tiyin/adapters/http"
	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/adapters/webhook"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/test/apicheck"
	"github.com/tiyin/tiyin/test/testkit"
)

// harness is a real server: SQLite, sandbox gateways, and a queue that runs the background
// stages at once, so a registered application is PENDING when register answers.
type harness struct {
	srv      *httptest.Server
	handler  http.Handler
	app      *application.App
	db       *store.DB
	key      string
	otherKey string
	logs     *observer.ObservedLogs
	check    *apicheck.Validator
}

type syncQueue struct {
	t   testing.TB
	app *application.App
}

// EnqueueApplications runs the stages once the enqueuing transaction has committed, as a job
// worker would, and before the request that enqueued them is answered.
func (q *syncQueue) EnqueueApplications(ctx context.Context, ids ...uuid.UUID) error {
	store.AfterCommit(ctx, func(ctx context.Context) {
		for _, id := range ids {
			if _, err := q.app.Loans.ProcessApplication.Handle(ctx, id); err != nil {
				q.t.Errorf("stages of %s: %v", id, err)
			}
		}
	})
	return nil
}

// noQueue drops background work: benchmarks measure the request alone.
type noQueue struct{}

func (noQueue) EnqueueApplications(context.Context, ...uuid.UUID) error { return nil }

func setup(t testing.TB) *harness {
	return setupWith(t, true)
}

// outsideTx fails the test when a gateway is called inside a transaction.
type outsideTx struct{ t testing.TB }

func (o outsideTx) Before(ctx context.Context) error {
	if store.InTransaction(ctx) {
		o.t.Errorf("a gateway was called inside a transaction")
		return errors.New("gateway called inside a transaction")
	}
	return nil
}

func (outsideTx) After(context.Context) error { return nil }

// harnessSetup is what a harness is built from; an option changes it before the server is built.
type harnessSetup struct {
	// gateways are the sandbox's, given to the graph as a bank gives its own adapters.
	gateways    testkit.Gateways
	idempotency ports.IdempotencyStore
	cfg         application.Config
	http        httpadapter.Config
	metrics     *observe.Metrics
	ready       httpadapter.ReadyFunc
}

type option func(s *harnessSetup)

func setupWith(t testing.TB, runStages bool, opts ...option) *harness {
	t.Helper()
	return setupOn(t, storetest.Open(t, store.SQLite), runStages, opts...)
}

// setupOn builds the harness on a database of the test's choosing.
func setupOn(t testing.TB, db *store.DB, runStages bool, opts ...option) *harness {
	t.Helper()
	db.EventBody = webhook.Body
	db.RequireUnitOfWork = true // as serve runs it: a write outside a unit of work fails the test
	uow := store.NewUnitOfWork(db)
	clock := store.NewSandboxClock(db)
	q := &syncQueue{t: t}
	var queue ports.WorkQueue = q
	if !runStages {
		queue = noQueue{}
	}
	s := harnessSetup{http: httpadapter.Config{Sandbox: true},
		cfg: application.Config{LoanContractDelay: 30 * time.Minute, Product: application.Product{PenaltyDaily: must(domain.ParsePercent("0.05"))}}}
	s.gateways = testkit.Gateways{Scoring: sandbox.NewScoring(), CoreBanking: sandbox.NewCoreBanking(), Processing: sandbox.NewProcessing(),
		CardIssuer: sandbox.NewCardIssuer(clock), SMS: sandbox.NewSMSSender(store.NewSMSOutbox(db), clock)}
	s.idempotency = uow
	for _, o := range opts {
		o(&s)
	}
	// Every gateway call goes through the graph's guard, which here fails the test when it is
	// made inside a unit of work's transaction: no gateway is called while row locks may be held.
	// The HTTP server is the graph's too, on the harness's settings, logger and readiness.
	var (
		app *application.App
		srv *httpadapter.Server
	)
	core, logs := observer.New(zap.DebugLevel)
	built := append(s.gateways.Options(), testkit.Swap(db), testkit.Swap(clock), testkit.Swap[ports.WorkQueue](queue),
		testkit.Swap[ports.IdempotencyStore](s.idempotency), testkit.Swap[ports.Sealer](storetest.Sealer), testkit.Swap(s.cfg),
		testkit.Swap(guard.New(guard.Config{Faults: outsideTx{t}}, nil)), testkit.Swap(s.http), testkit.Swap(zap.New(core)), testkit.Swap(s.ready))
	if s.metrics != nil {
		built = append(built, testkit.Swap(s.metrics))
	}
	testkit.Build(t, built, &app, &srv)
	q.app = app
	h := &harness{srv: httptest.NewServer(srv.Handler()), handler: srv.Handler(), app: app, db: db, logs: logs, check: apicheck.New(t)}
	t.Cleanup(h.srv.Close)
	ctx := context.Background()
	a, err := app.Partners.CreatePartner.Handle(ctx, application.CreatePartner{Name: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := app.Partners.CreatePartner.Handle(ctx, application.CreatePartner{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	h.key, h.otherKey = a.APIKey, b.APIKey
	return h
}

// answer is a decoded envelope.
type answer struct {
	Status int
	Raw    []byte
	Header http.Header
	ID     *string         `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a answer) code() int {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

// raw sends a request as given and validates the answer against the OpenAPI document.
func (h *harness) raw(t *testing.T, method, path, key, contentType string, body []byte) answer {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	h.check.Check(t, req, body, resp.StatusCode, resp.Header, b)
	a := answer{Status: resp.StatusCode, Raw: b, Header: resp.Header}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %s", method, path, b)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	for _, k := range []string{"id", "result", "error"} {
		if _, ok := keys[k]; !ok {
			t.Fatalf("%s %s: answer lacks %q: %s", method, path, k, b)
		}
	}
	return a
}

// call sends params under a fresh id.
func (h *harness) call(t *testing.T, path string, params any) answer {
	t.Helper()
	return h.callAs(t, h.key, uuid.NewString(), path, params)
}

func (h *harness) callAs(t *testing.T, key, id, path string, params any) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": id, "params": params})
	return h.raw(t, http.MethodPost, path, key, "application/json", body)
}

func clientData() map[string]any {
	return map[string]any{
		"pinfl": "31234567890123", "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
		"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567",
			"issuedBy": "Toshkent IIB", "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"},
		"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
		"phone":   "998901234567",
	}
}

func registerParams() map[string]any {
	return map[string]any{"externalId": uuid.NewString(), "isAgreementAccepted": true,
		"phoneNumber": "998901234567", "clientData": clientData()}
}

func (h *harness) register(t *testing.T) string {
	t.Helper()
	a := h.call(t, "/microloans/applications/pre-scoring/register", registerParams())
	if a.code() != 0 {
		t.Fatalf("register: %s", a.Raw)
	}
	var r struct{ ApplicationID string }
	_ = json.Unmarshal(a.Result, &r)
	return r.ApplicationID
}

func (h *harness) info(t *testing.T, id string) (status, stage string) {
	t.Helper()
	a := h.call(t, "/microloans/applications/info", map[string]any{"applicationId": id})
	var r struct {
		Status   string
		LastTask struct{ Name, Status string }
	}
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("info: %s", a.Raw)
	}
	return r.Status, r.LastTask.Name + "/" + r.LastTask.Status
}

func verifyParams(id string, amount int64) map[string]any {
	return map[string]any{"applicationId": id, "amount": amount, "percent": 28, "monthPeriod": 12, "backupPhone": "998911112233"}
}

// TestInfoNamesTheExternalIDAtTheTop: the info result carries the partner's externalId at its
// top level, as well as in preScoreResult.
func TestInfoNamesTheExternalIDAtTheTop(t *testing.T) {
	t.Parallel()
	h := setup(t)
	p := registerParams()
	a := h.call(t, "/microloans/applications/pre-scoring/register", p)
	var reg struct{ ApplicationID string }
	if err := json.Unmarshal(a.Result, &reg); err != nil || a.code() != 0 {
		t.Fatalf("register: %s", a.Raw)
	}
	type info struct {
		ExternalID     *string
		PreScoreResult *struct{ ExternalID string }
	}
	read := func() info {
		t.Helper()
		a := h.call(t, "/microloans/applications/info", map[string]any{"applicationId": reg.ApplicationID})
		var r info
		if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
			t.Fatalf("info: %s", a.Raw)
		}
		return r
	}
	if r := read(); r.ExternalID == nil || *r.ExternalID != p["externalId"] || r.PreScoreResult == nil || r.PreScoreResult.ExternalID != p["externalId"] {
		t.Fatalf("info: %+v, want externalId %v at the top and in preScoreResult", r, p["externalId"])
	}
}

// TestAnApplicationIsFoundByItsExternalID: the find call answers what info answers of the
// partner's application with that externalId; another partner, an unknown externalId and a
// malformed one are refused as documented.
func TestAnApplicationIsFoundByItsExternalID(t *testing.T) {
	t.Parallel()
	h := setup(t)
	p := registerParams()
	reg := h.call(t, "/microloans/applications/pre-scoring/register", p)
	var r struct{ ApplicationID string }
	if err := json.Unmarshal(reg.Result, &r); err != nil || reg.code() != 0 {
		t.Fatalf("register: %s", reg.Raw)
	}
	info := h.call(t, "/microloans/applications/info", map[string]any{"applicationId": r.ApplicationID})
	found := h.call(t, "/microloans/applications/find", map[string]any{"externalId": p["externalId"]})
	if found.code() != 0 || found.Status != 200 || !bytes.Equal(found.Result, info.Result) {
		t.Fatalf("find answers\n%s\nwhere info answers\n%s", found.Raw, info.Raw)
	}
	for _, tt := range []struct {
		name   string
		key    string
		params map[string]any
		code   int
		msg    string
	}{
		{"another partner's externalId", h.otherKey, map[string]any{"externalId": p["externalId"]}, 1001, "application not found"},
		{"an unknown externalId", h.key, map[string]any{"externalId": uuid.NewString()}, 1001, "application not found"},
		{"not a UUID", h.key, map[string]any{"externalId": "x"}, 4, "params.externalId: must be a UUID"},
		{"missing", h.key, map[string]any{}, 4, "params.externalId"},
	} {
		a := h.callAs(t, tt.key, uuid.NewString(), "/microloans/applications/find", tt.params)
		if a.code() != tt.code || !strings.Contains(a.Error.Message, tt.msg) {
			t.Errorf("%s: %s, want %d %q", tt.name, a.Raw, tt.code, tt.msg)
		}
	}
}

func TestEnvelopeErrors(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id := uuid.NewString()
	info := "/microloans/applications/info"
	valid := fmt.Sprintf(`{"id":%q,"params":{"applicationId":%q}}`, id, uuid.NewString())
	tests := []struct {
		name        string
		method      string
		path        string
		key         string
		contentType string
		body        string
		code        int
		status      int
		message     string
		echoID      bool
	}{
		{"no API key", "POST", info, "", "application/json", valid, 2, 401, "missing or invalid API key", true},
		{"wrong API key", "POST", info, "tiyin_wrong", "application/json", valid, 2, 401, "missing or invalid API key", true},
		{"wrong content type", "POST", info, h.key, "text/plain", valid, 5, 400, "Content-Type must be application/json", false},
		{"not JSON", "POST", info, h.key, "application/json", `{"id":`, 5, 400, "request body is not valid JSON", false},
		{"not an object", "POST", info, h.key, "application/json", `[1,2]`, 5, 400, "request body must be a JSON object", false},
		{"too large", "POST", info, h.key, "application/json", `{"id":"` + strings.Repeat("a", 70<<10) + `"}`, 5, 400, "larger than 64 KiB", false},
		{"missing id", "POST", info, h.key, "application/json", `{"params":{}}`, 4, 400, "id: must not be empty", false},
		{"empty id", "POST", info, h.key, "application/json", `{"id":"","params":{}}`, 4, 400, "id: must be a UUID", false},
		{"non-UUID id", "POST", info, h.key, "application/json", `{"id":"42","params":{}}`, 4, 400, "id: must be a UUID", false},
		{"numeric id", "POST", info, h.key, "application/json", `{"id":42,"params":{}}`, 4, 400, "id: must be a UUID string", false},
		{"missing params", "POST", info, h.key, "application/json", fmt.Sprintf(`{"id":%q}`, id), 4, 400, "params: must be an object", true},
		{"params not an object", "POST", info, h.key, "application/json", fmt.Sprintf(`{"id":%q,"params":"x"}`, id), 4, 400, "params: must be an object", true},
		{"unknown path", "POST", "/microloans/nothing", h.key, "application/json", valid, 6, 404, "unknown path /microloans/nothing", false},
		{"wrong method", "GET", info, h.key, "", "", 6, 405, "method GET is not allowed", false},
		{"unknown fields are ignored", "POST", info, h.key, "application/json", fmt.Sprintf(`{"id":%q,"extra":1,"params":{"applicationId":%q,"x":[]}}`, id, uuid.NewString()), 1001, 404, "application not found", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.raw(t, tt.method, tt.path, tt.key, tt.contentType, []byte(tt.body))
			if a.code() != tt.code || a.Status != tt.status || !strings.Contains(a.Error.Message, tt.message) {
				t.Fatalf("got %d %s", a.Status, a.Raw)
			}
			if a.Result != nil && string(a.Result) != "null" {
				t.Fatalf("error with a result: %s", a.Raw)
			}
			if tt.echoID != (a.ID != nil && *a.ID == id) {
				t.Fatalf("id echo: %s", a.Raw)
			}
		})
	}
}

func TestDisabledPartnerIsRefused(t *testing.T) {
	t.Parallel()
	h := setup(t)
	if err := h.app.Partners.SetPartnerEnabled.Handle(context.Background(), application.SetPartnerEnabled{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	a := h.callAs(t, h.otherKey, uuid.NewString(), "/microloans/applications/info", map[string]any{"applicationId": uuid.NewString()})
	if a.code() != 3 || a.Status != 403 {
		t.Fatalf("got %s", a.Raw)
	}
}

func TestFieldValidation(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	register := "/microloans/applications/pre-scoring/register"
	withCD := func(mutate func(cd map[string]any)) map[string]any {
		p := registerParams()
		cd := clientData()
		mutate(cd)
		p["clientData"] = cd
		return p
	}
	with := func(k string, v any) map[string]any {
		p := registerParams()
		p[k] = v
		return p
	}
	verify := func(k string, v any) map[string]any {
		p := verifyParams(app, 1000)
		p[k] = v
		return p
	}
	tests := []struct {
		name   string
		path   string
		params map[string]any
		want   string
	}{
		{"phone of 11 digits", register, with("phoneNumber", "99890123456"), "params.phoneNumber: must be 12 digits starting with 998"},
		{"phone of 13 digits", register, with("phoneNumber", "9989012345678"), "params.phoneNumber: must be 12 digits starting with 998"},
		{"phone not 998", register, with("phoneNumber", "997901234567"), "params.phoneNumber: must be 12 digits starting with 998"},
		{"phone with plus", register, with("phoneNumber", "+998901234567"), "params.phoneNumber: must be 12 digits starting with 998"},
		{"phone as a number", register, with("phoneNumber", 998901234567), "params.phoneNumber: must be a string"},
		{"agreement not accepted", register, with("isAgreementAccepted", false), "params.isAgreementAccepted: must be true"},
		{"agreement as a string", register, with("isAgreementAccepted", "true"), "params.isAgreementAccepted: must be a boolean"},
		{"externalId not a UUID", register, with("externalId", "abc"), "params.externalId: must be a UUID"},
		{"clientData missing", register, with("clientData", nil), "params.clientData: is required"},
		{"clientData missing fields", register, withCD(func(cd map[string]any) { delete(cd, "pinfl"); delete(cd, "document") }),
			"params.clientData.document: is required; params.clientData.pinfl: is required"},
		{"bad pinfl", register, withCD(func(cd map[string]any) { cd["pinfl"] = "1234" }), "params.clientData.pinfl: must be 14 digits"},
		{"expired document", register, withCD(func(cd map[string]any) { cd["document"].(map[string]any)["expiryDate"] = "2020-01-01" }),
			"params.clientData.document.expiryDate: document has expired"},
		{"under 18", register, withCD(func(cd map[string]any) { cd["birthDate"] = "2015-01-01" }), "params.clientData.birthDate: client must be at least 18 years old"},
		{"every failing field listed", register, map[string]any{"externalId": "x", "isAgreementAccepted": false, "phoneNumber": "1", "clientData": clientData()},
			"params.externalId: must be a UUID; params.phoneNumber: must be 12 digits starting with 998; params.isAgreementAccepted: must be true"},
		{"percent 100", "/microloans/applications/verify", verify("percent", 100), "params.percent: must be a number from 0 to 99.99 with at most two decimals"},
		{"percent with three decimals", "/microloans/applications/verify", verify("percent", 28.001), "params.percent: must be a number from 0 to 99.99"},
		{"percent as a string", "/microloans/applications/verify", verify("percent", "28"), "params.percent: must be a number"},
		{"negative monthPeriod", "/microloans/applications/verify", verify("monthPeriod", -1), "params.monthPeriod: must be 0 or more"},
		{"amount 0", "/microloans/applications/verify", verify("amount", 0), "params.amount: must be a positive whole number of tiyin"},
		{"amount with exponent", "/microloans/applications/verify", verify("amount", json.Number("1e3")), "params.amount: must be a whole number"},
		{"amount beyond int64", "/microloans/applications/verify", verify("amount", json.Number("92233720368547758070")), "params.amount: must be a whole number"},
		{"amount as a string", "/microloans/applications/verify", verify("amount", "1000"), "params.amount: must be a whole number"},
		{"amount fractional", "/microloans/applications/verify", verify("amount", 12.5), "params.amount: must be a whole number"},
		{"backup phone", "/microloans/applications/verify", verify("backupPhone", "998"), "params.backupPhone: must be 12 digits starting with 998"},
		{"initiator SYSTEM", "/microloans/applications/cancel", map[string]any{"applicationId": app, "initiator": "SYSTEM"}, "params.initiator: must be one of PARTNER, CLIENT"},
		{"applicationId missing", "/microloans/applications/info", map[string]any{}, "params.applicationId: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.call(t, tt.path, tt.params)
			if a.code() != 4 || a.Status != 400 || !strings.HasPrefix(a.Error.Message, tt.want) {
				t.Fatalf("want %q, got %s", tt.want, a.Raw)
			}
		})
	}
	if status, _ := h.info(t, app); status != "PENDING" {
		t.Fatalf("a refused call changed the application: %s", status)
	}
}

func TestApplicationProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	if status, stage := h.info(t, app); status != "PENDING" || stage != "PRE_SCORING_INFO/COMPLETED" {
		t.Fatalf("after pre-scoring: %s %s", status, stage)
	}
	a := h.call(t, "/microloans/applications/verify", verifyParams(app, 300_000_000))
	if a.code() != 0 || !strings.Contains(string(a.Result), `"phoneCallRequired":false`) {
		t.Fatalf("verify: %s", a.Raw)
	}
	issue := map[string]any{"applicationId": app, "clientData": clientData()}
	if a := h.call(t, "/microloans/applications/issue", issue); a.code() != 0 {
		t.Fatalf("issue: %s", a.Raw)
	}
	if status, stage := h.info(t, app); status != "COMPLETED" || stage != "GET_LOAN_ISSUANCE_RESULT/COMPLETED" {
		t.Fatalf("after issue: %s %s", status, stage)
	}
	if a := h.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": app, "initiator": "PARTNER"}); a.code() != 1002 || a.Status != 409 {
		t.Fatalf("cancel after issuance: %s", a.Raw)
	}
}

func TestBusinessRefusals(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	tests := []struct {
		name   string
		key    string
		path   string
		params map[string]any
		code   int
		status int
		msg    string
	}{
		{"unknown application", h.key, "/microloans/applications/info", map[string]any{"applicationId": uuid.NewString()}, 1001, 404, "application not found"},
		{"another partner's application", h.otherKey, "/microloans/applications/info", map[string]any{"applicationId": app}, 1001, 404, "application not found"},
		{"another partner cannot cancel", h.otherKey, "/microloans/applications/cancel", map[string]any{"applicationId": app, "initiator": "PARTNER"}, 1001, 404, "application not found"},
		{"issue before verify", h.key, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": clientData()}, 1002, 409,
			"issue is not allowed: application status is PENDING, stage PRE_SCORING_INFO/COMPLETED"},
		{"offer above the limit", h.key, "/microloans/applications/verify", verifyParams(app, 5_000_000_001), 1004, 422, "amount 5000000001 is above amountLimit 5000000000"},
		{"complete a call nobody asked for", h.key, "/sandbox/applications/verification/complete", map[string]any{"applicationId": app}, 1002, 409, "verification complete is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.callAs(t, tt.key, uuid.NewString(), tt.path, tt.params)
			if a.code() != tt.code || a.Status != tt.status || !strings.Contains(a.Error.Message, tt.msg) {
				t.Fatalf("got %s", a.Raw)
			}
		})
	}
	ext := uuid.NewString()
	p := registerParams()
	p["externalId"] = ext
	first := h.call(t, "/microloans/applications/pre-scoring/register", p)
	var reg struct{ ApplicationID string }
	_ = json.Unmarshal(first.Result, &reg)
	if a := h.call(t, "/microloans/applications/pre-scoring/register", p); a.code() != 1011 || a.Status != 409 ||
		a.Error.Message != "externalId already used by this partner: application "+reg.ApplicationID {
		t.Fatalf("externalId reused: %s, want 1011 naming %s", a.Raw, reg.ApplicationID)
	}
	if a := h.callAs(t, h.otherKey, uuid.NewString(), "/microloans/applications/pre-scoring/register", p); a.code() != 0 {
		t.Fatalf("another partner may reuse an externalId: %s", a.Raw)
	}
}

func TestClientDataMustMatchAtIssue(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	h.call(t, "/microloans/applications/verify", verifyParams(app, 1000))
	cd := clientData()
	cd["firstName"] = "Bobur"
	cd["lastName"] = "  KARIMOV " // case and spaces do not count
	a := h.call(t, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": cd})
	if a.code() != 1005 || a.Error.Message != "clientData differs from the data given at pre-scoring: firstName" {
		t.Fatalf("got %s", a.Raw)
	}
}

func TestCancelRulesPerInitiator(t *testing.T) {
	t.Parallel()
	h := setup(t)
	choosing := h.register(t)
	verified := h.register(t)
	h.call(t, "/microloans/applications/verify", verifyParams(verified, 1000))
	if a := h.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": verified, "initiator": "CLIENT"}); a.code() != 1003 {
		t.Fatalf("client after verify: %s", a.Raw)
	}
	if a := h.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": verified, "initiator": "PARTNER"}); a.code() != 0 {
		t.Fatalf("partner after verify: %s", a.Raw)
	}
	a := h.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": choosing, "initiator": "CLIENT"})
	if a.code() != 0 || !strings.Contains(string(a.Result), choosing) {
		t.Fatalf("client while choosing: %s", a.Raw)
	}
	if status, _ := h.info(t, choosing); status != "CANCELED" {
		t.Fatalf("status %s", status)
	}
}

func TestPhoneCallVerification(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	a := h.call(t, "/microloans/applications/verify", verifyParams(app, sandbox.CallThreshold+1))
	if a.code() != 0 || !strings.Contains(string(a.Result), `"phoneCallRequired":true`) || !strings.Contains(string(a.Result), sandbox.CallCentrePhone) {
		t.Fatalf("verify: %s", a.Raw)
	}
	if _, stage := h.info(t, app); stage != "CLIENT_VERIFICATION/PENDING" {
		t.Fatalf("stage %s", stage)
	}
	if a := h.call(t, "/sandbox/applications/verification/complete", map[string]any{"applicationId": app}); a.code() != 0 {
		t.Fatalf("complete: %s", a.Raw)
	}
	if _, stage := h.info(t, app); stage != "CLIENT_VERIFICATION/COMPLETED" {
		t.Fatalf("stage %s", stage)
	}
}

func TestSameIDReplaysTheAnswer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id := uuid.NewString()
	p := registerParams()
	first := h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p)
	second := h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p)
	if first.code() != 0 || !bytes.Equal(first.Raw, second.Raw) {
		t.Fatalf("replay differs:\n%s\n%s", first.Raw, second.Raw)
	}
	if _, ok := first.Header["Idempotent-Replayed"]; ok || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("Idempotent-Replayed: first %q, replay %q; want none, then true",
			first.Header.Values("Idempotent-Replayed"), second.Header.Values("Idempotent-Replayed"))
	}
	p["phoneNumber"] = "998907654321"
	if a := h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p); a.code() != 8 || a.Status != 409 {
		t.Fatalf("other params: %s", a.Raw)
	}
	if a := h.callAs(t, h.key, id, "/microloans/applications/cancel", map[string]any{"applicationId": uuid.NewString(), "initiator": "PARTNER"}); a.code() != 8 {
		t.Fatalf("other endpoint: %s", a.Raw)
	}
	// Another partner's keys are its own.
	if a := h.callAs(t, h.otherKey, id, "/microloans/applications/info", map[string]any{"applicationId": uuid.NewString()}); a.code() != 1001 {
		t.Fatalf("another partner: %s", a.Raw)
	}
	// A business error is an answer too: replayed, not re-executed.
	app := h.register(t)
	cancelID := uuid.NewString()
	issue := map[string]any{"applicationId": app, "clientData": clientData()}
	refused := h.callAs(t, h.key, cancelID, "/microloans/applications/issue", issue)
	h.call(t, "/microloans/applications/verify", verifyParams(app, 1000))
	again := h.callAs(t, h.key, cancelID, "/microloans/applications/issue", issue)
	if refused.code() != 1002 || !bytes.Equal(refused.Raw, again.Raw) {
		t.Fatalf("business error not replayed:\n%s\n%s", refused.Raw, again.Raw)
	}
	if refused.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a replayed refusal is not marked, or a first is: %q, %q",
			refused.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	// A read stores nothing, so it is never a replay.
	readID := uuid.NewString()
	for range 2 {
		if a := h.callAs(t, h.key, readID, "/microloans/applications/info", map[string]any{"applicationId": app}); a.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("a read marked as a replay: %s", a.Raw)
		}
	}
	// A validation error is not stored: the corrected retry runs.
	fixID := uuid.NewString()
	bad := registerParams()
	bad["phoneNumber"] = "1"
	if a := h.callAs(t, h.key, fixID, "/microloans/applications/pre-scoring/register", bad); a.code() != 4 {
		t.Fatalf("bad: %s", a.Raw)
	}
	bad["phoneNumber"] = "998901234567"
	if a := h.callAs(t, h.key, fixID, "/microloans/applications/pre-scoring/register", bad); a.code() != 0 {
		t.Fatalf("corrected retry: %s", a.Raw)
	}
}

// TestAnAnswerStoredBeforeOutcomesIsReplayedAsSent: a record written by a version that stored
// the answer as sent (its envelope code and body, before outcomes were stored) is replayed as it
// is, byte for byte, with the status of its code.
func TestAnAnswerStoredBeforeOutcomesIsReplayedAsSent(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, tt := range []struct {
		code   int
		status int
		body   string
	}{
		{0, 200, `{"id":"%s","result":{"applicationId":"0b7c2b8e-58f4-4bb4-a7a8-8d4f3e1d2c11","message":"Application registered; pre-scoring started"},"error":null}`},
		{1011, 409, `{"id":"%s","result":null,"error":{"code":1011,"message":"externalId already used by this partner"}}`},
	} {
		id := uuid.NewString()
		p := registerParams()
		if a := h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p); a.code() != 0 {
			t.Fatalf("first: %s", a.Raw)
		}
		legacy := fmt.Sprintf(tt.body, strings.ToUpper(id))
		if err := h.db.Gorm.Exec("UPDATE idempotency_records SET code = ?, body = ? WHERE key = ?", tt.code, []byte(legacy), id).Error; err != nil {
			t.Fatal(err)
		}
		again := h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p)
		if string(again.Raw) != legacy || again.Status != tt.status {
			t.Fatalf("replay of a record stored as sent: %d %s, want %d %s", again.Status, again.Raw, tt.status, legacy)
		}
	}
}

// TestRacingDuplicatesMakeOneApplication: on each database, duplicates sent at once all get
// the first's answer byte for byte, and one application exists. On PostgreSQL they really run
// in parallel: each duplicate does its work, waits on the claim's insert, and is rolled back.
func TestRacingDuplicatesMakeOneApplication(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			h := setupOn(t, storetest.Open(t, d), true)
			id := uuid.NewString()
			p := registerParams()
			answers := race(t, 8, func() answer { return h.callAs(t, h.key, id, "/microloans/applications/pre-scoring/register", p) })
			var count int64
			if err := h.db.Gorm.Table("applications").Count(&count).Error; err != nil || count != 1 || answers[0].code() != 0 {
				t.Fatalf("%d applications, %v: %s", count, err, answers[0].Raw)
			}
		})
	}
}

// TestRacingDuplicateChecksQuoteOnce: duplicates of a repayment check, whose work (a new
// request) conflicts with nothing, keep one request: the others' are rolled back with their
// claim.
func TestRacingDuplicateChecksQuoteOnce(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			h := setupOn(t, storetest.Open(t, d), true)
			_, loanID := h.withContract(t, 1_000_000_000)
			id := uuid.NewString()
			answers := race(t, 8, func() answer {
				return h.callAs(t, h.key, id, "/repayment/loans/check", map[string]any{"loanId": loanID})
			})
			var count int64
			if err := h.db.Gorm.Table("repayments").Count(&count).Error; err != nil || count != 1 || answers[0].code() != 0 {
				t.Fatalf("%d repayment requests, %v: %s", count, err, answers[0].Raw)
			}
		})
	}
}

// race sends n calls at once and checks that every answer is the first's, byte for byte.
func race(t *testing.T, n int, call func() answer) []answer {
	t.Helper()
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { answers[i] = call() })
	}
	wg.Wait()
	for _, a := range answers[1:] {
		if !bytes.Equal(a.Raw, answers[0].Raw) {
			t.Fatalf("answers differ:\n%s\n%s", answers[0].Raw, a.Raw)
		}
	}
	return answers
}

func TestSandboxClock(t *testing.T) {
	t.Parallel()
	h := setup(t)
	a := h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"})
	b := h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "720h"})
	var x, y struct{ Now string }
	_ = json.Unmarshal(a.Result, &x)
	_ = json.Unmarshal(b.Result, &y)
	if a.code() != 0 || b.code() != 0 || !strings.HasSuffix(x.Now, "+05:00") || y.Now <= x.Now {
		t.Fatalf("clock: %s %s", a.Raw, b.Raw)
	}
	for _, bad := range []string{"-1h", "soon", ""} {
		if a := h.call(t, "/sandbox/clock/advance", map[string]any{"duration": bad}); a.code() != 4 {
			t.Fatalf("%q: %s", bad, a.Raw)
		}
	}
	if a := h.call(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"}); a.code() != 0 || string(a.Result) != `{"messages":[]}` {
		t.Fatalf("outbox: %s", a.Raw)
	}
}

func TestPanicAnswersInternalErrorWithoutDetails(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.DebugLevel)
	// An App without use cases makes every handler panic on a nil pointer.
	srv := httpadapter.New(httpadapter.Deps{App: &application.App{}, Log: zap.New(core)}, httpadapter.Config{})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/microloans/applications/info", strings.NewReader(`{"id":"0b6a6f2e-8d0c-4c38-9a57-3f1f0c7c1a01","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	apicheck.New(t).Check(t, req, nil, resp.StatusCode, resp.Header, b)
	if resp.StatusCode != 500 || string(b) != `{"id":null,"result":null,"error":{"code":1,"message":"internal error"}}` {
		t.Fatalf("got %d %s", resp.StatusCode, b)
	}
	if logs.FilterMessage("panic").Len() != 1 {
		t.Fatal("the panic was not logged")
	}
}

func TestLogsCarryNoPersonalData(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.register(t)
	h.call(t, "/microloans/applications/verify", verifyParams(app, 1000))
	h.call(t, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": clientData()})
	if h.logs.Len() == 0 {
		t.Fatal("nothing logged")
	}
	for _, e := range h.logs.All() {
		line := fmt.Sprint(e.Message, e.ContextMap())
		for _, secret := range []string{"31234567890123", "Karimov", "1234567", "998901234567", "Bunyodkor", h.key} {
			if strings.Contains(line, secret) {
				t.Fatalf("log line carries %q: %s", secret, line)
			}
		}
		if e.ContextMap()["endpoint"] == nil {
			t.Fatalf("access log without endpoint: %v", e.ContextMap())
		}
	}
}

func TestEveryDocumentedOperationIsServed(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, op := range h.check.Paths() {
		method, path, _ := strings.Cut(op, " ")
		a := h.raw(t, method, path, h.key, "application/json", []byte(`{"id":"`+uuid.NewString()+`","params":{}}`))
		if a.code() == 6 {
			t.Errorf("%s is documented but not served", op)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestEveryOperationHasExamples: partners copy the document's examples; the document's loader
// validates each against its schema.
func TestEveryOperationHasExamples(t *testing.T) {
	t.Parallel()
	if missing := apicheck.New(t).MissingExamples(); len(missing) > 0 {
		t.Fatalf("operations without a request or answer example: %v", missing)
	}
}

func TestDocsPageIsPublicAndSelfContained(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for path, want := range map[string]string{"/docs": "text/html", "/docs/redoc.standalone.js": "text/javascript", "/openapi.yaml": "application/yaml"} {
		resp, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) || len(b) == 0 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if path == "/docs" {
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("/docs CSP %q lets the page load from elsewhere", csp)
			}
			if strings.Contains(string(b), "https://") {
				t.Errorf("/docs refers to another site:\n%s", b)
			}
		}
	}
}

// TestTheListenerShowsAScannerLittle: every answer says nosniff and names no server software;
// a browser's own /favicon.ico request is the 404 of an unknown path, not a demand for a key.
func TestTheListenerShowsAScannerLittle(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for path, want := range map[string]int{"/favicon.ico": http.StatusNotFound, "/healthz": http.StatusOK, "/microloans/info": http.StatusUnauthorized} {
		resp, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, b, want)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q", path, got)
		}
		if got := resp.Header.Get("Server"); got != "" {
			t.Errorf("GET %s: Server %q names the software", path, got)
		}
	}
}

// TestTheSandboxClockStopsAtAHundredYears: an advance that would take the clock more than 100
// years ahead in all is code 4 and moves nothing; up to the bound it moves.
func TestTheSandboxClockStopsAtAHundredYears(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var last answer
	for _, tt := range []struct {
		by   string
		code int
	}{
		{"2562047h", 4}, // the largest duration there is
		{"876000h", 0},  // 99.9 years
		{"8760h", 4},    // past 100 years in all
		{"0s", 0},       // reading is always fine
	} {
		if last = h.call(t, "/sandbox/clock/advance", map[string]any{"duration": tt.by}); last.code() != tt.code {
			t.Fatalf("advance %s: %s", tt.by, last.Raw)
		}
	}
	var r struct{ Now time.Time }
	if err := json.Unmarshal(last.Result, &r); err != nil {
		t.Fatal(err)
	}
	if ahead := time.Until(r.Now); ahead < 876000*time.Hour-time.Minute || ahead > 876000*time.Hour+time.Minute {
		t.Fatalf("the clock is %s ahead, want 876000h", ahead)
	}
}

// TestHEADOnThePublicPagesAnswersLikeGET: a monitor's or a load balancer's HEAD on the health
// checks, the API document and the docs page needs no key and gets GET's status and type,
// without a body; an API path still asks for a key.
func TestHEADOnThePublicPagesAnswersLikeGET(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, path := range []string{"/healthz", "/readyz", "/openapi.yaml", "/docs", "/docs/redoc.standalone.js"} {
		get, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = get.Body.Close()
		head, err := http.Head(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(head.Body)
		_ = head.Body.Close()
		if head.StatusCode != get.StatusCode || head.StatusCode != http.StatusOK || len(b) != 0 ||
			head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q (%d bytes), GET %d %q", path, head.StatusCode, head.Header.Get("Content-Type"), len(b),
				get.StatusCode, get.Header.Get("Content-Type"))
		}
	}
	resp, err := http.Head(h.srv.URL + "/microloans/info")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("HEAD on an API path without a key: %d", resp.StatusCode)
	}
}

// TestAnEnvelopeSaysItsMessageAsWritten: the 401's message reads "Bearer <key>" in the raw
// body, as curl shows it, not "\u003ckey\u003e"; the answer stays JSON a browser will not
// sniff into a page.
func TestAnEnvelopeSaysItsMessageAsWritten(t *testing.T) {
	t.Parallel()
	h := setup(t)
	resp, err := http.Post(h.srv.URL+"/microloans/applications/info", "application/json", strings.NewReader(`{"id":"x","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "Bearer <key>") || strings.Contains(string(b), `\u003c`) {
		t.Errorf("401: %d %s", resp.StatusCode, b)
	}
	if ct, sniff := resp.Header.Get("Content-Type"), resp.Header.Get("X-Content-Type-Options"); ct != "application/json" || sniff != "nosniff" {
		t.Errorf("Content-Type %q, X-Content-Type-Options %q", ct, sniff)
	}
}

// TestTheDocsPagesAnswerWithATrailingSlash: /docs/ and /docs/try/, as a person types them, send
// to the page (a redirect, no key asked), for GET and HEAD.
func TestTheDocsPagesAnswerWithATrailingSlash(t *testing.T) {
	t.Parallel()
	h := setup(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, page := range []string{"/docs", "/docs/try"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, h.srv.URL+page+"/", nil)
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != page {
				t.Errorf("%s %s/: %d, Location %q", method, page, resp.StatusCode, resp.Header.Get("Location"))
			}
		}
		resp, err := http.Get(h.srv.URL + page + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s/ followed: %d %s", page, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
