package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/client"
)

// fakeTiyin answers each call with the next of its answers (the last one again once they run
// out) and records what it was sent.
type fakeTiyin struct {
	mu      sync.Mutex
	answers []answer
	got     []sent
}

type answer struct {
	status int
	body   string
}

// sent is one request as the fake got it.
type sent struct {
	method, path, auth, userAgent string
	id                            string
	params                        map[string]string // each param's JSON
}

func (f *fakeTiyin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var env struct {
		ID     string                     `json:"id"`
		Params map[string]json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &env)
	f.mu.Lock()
	params := map[string]string{}
	for k, v := range env.Params {
		params[k] = string(v)
	}
	f.got = append(f.got, sent{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("User-Agent"), env.ID, params})
	a := f.answers[0]
	if len(f.answers) > 1 {
		f.answers = f.answers[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", env.ID)
	w.WriteHeader(a.status)
	_, _ = fmt.Fprint(w, a.body)
}

func (f *fakeTiyin) requests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.got...)
}

// fastRetry keeps the tests' waits short.
var fastRetry = client.WithRetry(client.Retry{First: time.Millisecond, Max: 5 * time.Millisecond})

func setup(t *testing.T, answers ...answer) (*client.Client, *fakeTiyin) {
	t.Helper()
	f := &fakeTiyin{answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "sk_test", fastRetry)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func ok(result string) answer {
	return answer{200, `{"id":"00000000-0000-4000-8000-000000000000","result":` + result + `,"error":null}`}
}

func refused(status, code int, msg string) answer {
	return answer{status, fmt.Sprintf(`{"id":"00000000-0000-4000-8000-000000000000","result":null,"error":{"code":%d,"message":%q}}`, code, msg)}
}

var unavailable = refused(503, 10, "core banking is unavailable")

const appID = "01a2c1a4-0000-7000-8000-000000000001"

// A refusal is a *client.Error under errors.As, with its code, message, HTTP status and
// request id; errors.Is matches its code and no other; it is sent once.
func TestARefusalIsAnErrorMatchedByItsCode(t *testing.T) {
	t.Parallel()
	c, f := setup(t, refused(404, 1012, "loan not found"))
	loan, err := c.Loans.Info(context.Background(), uuid.MustParse(appID))
	var e *client.Error
	if loan != nil || !errors.As(err, &e) {
		t.Fatalf("got %v, %v; want a *client.Error", loan, err)
	}
	reqs := f.requests()
	if e.Code != client.CodeLoanNotFound || e.Message != "loan not found" || e.Status != 404 || e.RequestID != reqs[0].id || e.RequestID == "" ||
		e.Path != "/microloans/info" || e.Error() != "tiyin: /microloans/info: code 1012 (HTTP 404): loan not found" {
		t.Errorf("the error: %#v (request id sent %q)", e, reqs[0].id)
	}
	if !errors.Is(err, client.CodeLoanNotFound) || errors.Is(err, client.CodeApplicationNotFound) || client.Retryable(err) {
		t.Errorf("errors.Is or Retryable wrong for %v", err)
	}
	wrapped := fmt.Errorf("reading the loan: %w", err)
	if !errors.Is(wrapped, client.CodeLoanNotFound) || !errors.As(wrapped, &e) {
		t.Errorf("a wrapped refusal lost its code: %v", wrapped)
	}
	if len(reqs) != 1 || reqs[0].path != "/microloans/info" || reqs[0].auth != "Bearer sk_test" {
		t.Errorf("requests: %+v", reqs)
	}
}

// Code 10 is repeated with the same envelope id until the answer comes; a business refusal is
// not repeated; when the attempts run out the last answer's error is returned.
func TestCode10IsRepeatedWithTheSameEnvelopeID(t *testing.T) {
	t.Parallel()
	paid := ok(`{"loanId":"4829105736","requestId":"01a2c1a4-0000-7000-8000-000000000002","status":"SUCCESS","message":"payment posted"}`)
	params := client.PayRepaymentParams{LoanID: "4829105736", RequestID: uuid.MustParse("01a2c1a4-0000-7000-8000-000000000002"),
		PaymentType: client.PaymentEarly, DebitID: "DBT-1", Amount: 30_000_000, ProcessingType: client.ProcessingUzcard}

	c, f := setup(t, unavailable, unavailable, paid)
	r, err := c.Repayments.Pay(context.Background(), params)
	if err != nil || r.Status != client.RepaymentSuccess || r.LoanID != "4829105736" {
		t.Fatalf("pay: %+v, %v", r, err)
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[0].id == "" || reqs[1].id != reqs[0].id || reqs[2].id != reqs[0].id {
		t.Fatalf("want 3 sends with one envelope id, got %+v", reqs)
	}
	if reqs[0].params["paymentType"] != `"EARLY"` || reqs[0].params["amount"] != "30000000" {
		t.Errorf("params sent: %s", reqs[0].params)
	}

	c, f = setup(t, refused(422, 1014, "insufficient funds"))
	if _, err := c.Repayments.Pay(context.Background(), params); !errors.Is(err, client.CodeInsufficientFunds) || len(f.requests()) != 1 {
		t.Errorf("a business refusal: %v after %d sends", err, len(f.requests()))
	}

	f = &fakeTiyin{answers: []answer{unavailable}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err = client.New(srv.URL, "sk_test", client.WithRetry(client.Retry{Attempts: 3, First: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Repayments.Pay(context.Background(), params)
	if !errors.Is(err, client.CodeUnavailable) || !client.Retryable(err) || len(f.requests()) != 3 {
		t.Errorf("always unavailable: %v after %d sends", err, len(f.requests()))
	}
	ids := map[string]bool{}
	for _, r := range f.requests() {
		ids[r.id] = true
	}
	if len(ids) != 1 {
		t.Errorf("envelope ids: %v", ids)
	}
}

// A partner that keeps the envelope id sends it with WithEnvelopeID; every other call gets a
// new one.
func TestWithEnvelopeIDSendsTheGivenID(t *testing.T) {
	t.Parallel()
	c, f := setup(t, ok(`{"applicationId":"`+appID+`","message":"Application canceled"}`))
	id := uuid.New()
	if _, err := c.Applications.Cancel(context.Background(), uuid.MustParse(appID), client.InitiatorPartner, client.WithEnvelopeID(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Applications.Cancel(context.Background(), uuid.MustParse(appID), client.InitiatorPartner); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if reqs[0].id != id.String() || reqs[1].id == id.String() || reqs[0].params["initiator"] != `"PARTNER"` {
		t.Errorf("sent %+v, want the first with id %s", reqs, id)
	}
}

// No answer (nothing listens) is repeated, and the error says the call got none.
func TestNoAnswerIsRepeated(t *testing.T) {
	t.Parallel()
	rt := &countingTransport{}
	c, err := client.New("http://127.0.0.1:1", "sk_test", client.WithHTTPClient(&http.Client{Transport: rt}),
		client.WithRetry(client.Retry{Attempts: 2, First: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Sandbox.AdvanceClock(context.Background(), 0)
	var e *client.Error
	if err == nil || errors.As(err, &e) || !client.Retryable(err) || rt.n != 2 || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("%v after %d sends", err, rt.n)
	}
}

type countingTransport struct{ n int }

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n++
	return http.DefaultTransport.RoundTrip(r)
}

// A proxy's page in tiyin's stead is repeated when it is a 5xx, and not when it is a 4xx.
func TestAnAnswerWithoutTheEnvelope(t *testing.T) {
	t.Parallel()
	c, f := setup(t, answer{502, "<html>bad gateway</html>"}, ok(`{"now":"2026-11-22T09:52:10+05:00"}`))
	now, err := c.Sandbox.AdvanceClock(context.Background(), 31*time.Minute)
	if err != nil || len(f.requests()) != 2 || !now.Equal(time.Date(2026, 11, 22, 4, 52, 10, 0, time.UTC)) {
		t.Fatalf("a 502 page then the answer: %v, %v after %d sends", now, err, len(f.requests()))
	}
	if d := f.requests()[0].params["duration"]; d != `"31m0s"` {
		t.Errorf("duration sent %s", d)
	}
	c, f = setup(t, answer{404, "<html>not here</html>"})
	_, err = c.Sandbox.AdvanceClock(context.Background(), 0)
	if err == nil || client.Retryable(err) || len(f.requests()) != 1 {
		t.Fatalf("a 404 page: %v after %d sends", err, len(f.requests()))
	}
}

// The context ends the waits between attempts.
func TestTheContextEndsTheRetries(t *testing.T) {
	t.Parallel()
	f := &fakeTiyin{answers: []answer{unavailable}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, "sk_test", client.WithRetry(client.Retry{Attempts: 100, First: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Loans.Payments(ctx, "1"); !errors.Is(err, context.DeadlineExceeded) || len(f.requests()) != 1 {
		t.Fatalf("%v after %d sends", err, len(f.requests()))
	}
}

// Dates travel as yyyy-MM-dd, optional fields are left out, and the user agent names the
// partner's software and this package's version.
func TestRegisterSendsDatesAndLeavesOutEmptyFields(t *testing.T) {
	t.Parallel()
	f := &fakeTiyin{answers: []answer{ok(`{"applicationId":"` + appID + `","message":"registered"}`)}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/", " sk_test ", client.WithUserAgent("acme-loans/2.1"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := c.Applications.Register(context.Background(), client.RegisterApplicationParams{
		ExternalID: uuid.New(), AgreementAccepted: true, PhoneNumber: "998901234567", ClientData: client.ClientData{
			PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz", BirthDate: client.NewDate(1990, time.May, 17),
			Phone: "998901234567", Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567",
				IssuedBy: "Toshkent IIB", IssuedDate: client.NewDate(2020, time.January, 10), ExpiryDate: client.NewDate(2030, time.January, 9)},
			Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}})
	if err != nil || reg.ApplicationID.String() != appID {
		t.Fatalf("register: %+v, %v", reg, err)
	}
	r := f.requests()[0]
	var data map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.params["clientData"]), &data); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	_ = json.Unmarshal(data["document"], &doc)
	if string(data["birthDate"]) != `"1990-05-17"` || doc["issuedDate"] != "2020-01-10" || doc["type"] != "PASSPORT" {
		t.Errorf("clientData sent: %s", r.params["clientData"])
	}
	for _, absent := range []string{"inn", "middleName", "gender", "email"} {
		if _, ok := data[absent]; ok {
			t.Errorf("an empty %s was sent: %s", absent, r.params["clientData"])
		}
	}
	if r.params["isAgreementAccepted"] != "true" || r.path != "/microloans/applications/pre-scoring/register" {
		t.Errorf("sent %+v", r)
	}
	if r.userAgent != "acme-loans/2.1 tiyin-go/"+client.Version || r.auth != "Bearer sk_test" {
		t.Errorf("user agent %q, authorization %q", r.userAgent, r.auth)
	}
}

// A percent keeps its exact digits both ways: 28.0 and 83.06 read as 2800 and 8306
// hundredths, the offer goes out as written, and a third decimal is refused, not rounded.
func TestPercentTravelsExactly(t *testing.T) {
	t.Parallel()
	info := func(percent string) answer {
		return ok(`{"applicationId":"` + appID + `","externalId":"7d3f1c2a-5b6e-4f70-8a91-2c3d4e5f6a7b","status":"PENDING",` +
			`"lastTask":{"name":"PRE_SCORING_INFO","status":"COMPLETED","errorCode":null,"errorMessage":null},` +
			`"preScoreResult":{"externalId":"7d3f1c2a-5b6e-4f70-8a91-2c3d4e5f6a7b","amountLimit":5000000000,"percent":` + percent + `,"monthPeriod":12}}`)
	}
	c, f := setup(t, info("28.0"), info("83.06"), ok(`{"message":"ok","phoneNumber":"","phoneCallRequired":false}`), info("28.125"))
	ctx := context.Background()
	a, err := c.Applications.Info(ctx, uuid.MustParse(appID))
	if err != nil || a.PreScoreResult.Percent.Hundredths() != 2800 || a.PreScoreResult.Percent.String() != "28.00" ||
		a.Status != client.ApplicationPending || a.LastTask.Name != client.TaskPreScoringInfo || a.LastTask.ErrorCode != 0 {
		t.Fatalf("28.0: %+v, %v", a, err)
	}
	a, err = c.Applications.Info(ctx, uuid.MustParse(appID))
	if err != nil || a.PreScoreResult.Percent != client.PercentFromHundredths(8306) {
		t.Fatalf("83.06: %+v, %v", a, err)
	}
	if _, err := c.Applications.Verify(ctx, client.VerifyApplicationParams{ApplicationID: uuid.MustParse(appID), Amount: 300_000_000,
		Percent: a.PreScoreResult.Percent, MonthPeriod: 12, BackupPhone: "998911112233"}); err != nil {
		t.Fatal(err)
	}
	if p := f.requests()[2].params["percent"]; p != "83.06" {
		t.Errorf("percent sent as %s, want 83.06", p)
	}
	if a, err := c.Applications.Info(ctx, uuid.MustParse(appID)); err == nil || client.Retryable(err) {
		t.Errorf("28.125 read as %+v, %v; want an error", a, err)
	}
}

// A page of events decodes each event's data into its type's struct.
func TestEventsDecodeIntoTheirTypes(t *testing.T) {
	t.Parallel()
	c, f := setup(t, ok(`{"events":[`+
		`{"id":"019a8b7c-6d5e-7f40-8a1b-2c3d4e5f6a7b","type":"LOAN_CONTRACT_ASSIGNED","sequence":7,"createdAt":"2026-11-22T10:15:30.125+05:00","data":{"applicationId":"`+appID+`","loanId":"4829105736"}},`+
		`{"id":"019a8b7c-6d5e-7f40-8a1b-2c3d4e5f6a7c","type":"CARD_ORDER_STATUS_CHANGED","sequence":8,"createdAt":"2026-11-22T10:15:31+05:00","data":{"orderId":"`+appID+`","externalId":"ORD-1","status":"IN_PROGRESS","cardId":null}},`+
		`{"id":"019a8b7c-6d5e-7f40-8a1b-2c3d4e5f6a7d","type":"SOMETHING_NEW","sequence":9,"createdAt":"2026-11-22T10:15:32+05:00","data":{}}`+
		`],"nextSequence":9,"hasMore":false}`))
	page, err := c.Events.List(context.Background(), client.ListEventsParams{AfterSequence: 6, Types: []client.EventType{client.EventLoanContractAssigned}})
	if err != nil || len(page.Events) != 3 || page.NextSequence != 9 || page.HasMore {
		t.Fatalf("page: %+v, %v", page, err)
	}
	if p := f.requests()[0].params; p["afterSequence"] != "6" || p["types"] != `["LOAN_CONTRACT_ASSIGNED"]` || p["limit"] != "" {
		t.Errorf("params sent: %s", p)
	}
	d, err := page.Events[0].Decode()
	if lc, ok := d.(*client.LoanContractAssigned); err != nil || !ok || lc.LoanID != "4829105736" || lc.ApplicationID.String() != appID {
		t.Errorf("LOAN_CONTRACT_ASSIGNED: %#v, %v", d, err)
	}
	d, err = page.Events[1].Decode()
	if co, ok := d.(*client.CardOrderStatusChanged); err != nil || !ok || co.Status != client.CardOrderInProgress || co.CardID != uuid.Nil {
		t.Errorf("CARD_ORDER_STATUS_CHANGED: %#v, %v", d, err)
	}
	if d, err := page.Events[2].Decode(); err == nil {
		t.Errorf("an unknown type decoded as %#v", d)
	}
	if page.Events[0].CreatedAt.UnixMilli() != time.Date(2026, 11, 22, 5, 15, 30, 125e6, time.UTC).UnixMilli() {
		t.Errorf("createdAt %v", page.Events[0].CreatedAt)
	}
}

// New refuses what cannot work, before any call.
func TestNewRefusesABadURLOrNoKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url, key string
		opts           []client.Option
	}{
		{"no scheme", "tiyin.bank.uz", "k", nil},
		{"not http", "ftp://tiyin.bank.uz", "k", nil},
		{"no key", "https://tiyin.bank.uz", " ", nil},
		{"nil HTTP client", "https://tiyin.bank.uz", "k", []client.Option{client.WithHTTPClient(nil)}},
		{"zero timeout", "https://tiyin.bank.uz", "k", []client.Option{client.WithTimeout(0)}},
		{"negative retry", "https://tiyin.bank.uz", "k", []client.Option{client.WithRetry(client.Retry{Attempts: -1})}},
	} {
		if c, err := client.New(tc.url, tc.key, tc.opts...); err == nil {
			t.Errorf("%s: got a client %v", tc.name, c)
		}
	}
}

// The README's example is examples/quickstart, which the build compiles, word for word.
func TestTheREADMEShowsTheCompiledExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	quick, err := os.ReadFile("examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(quick)+"```\n") {
		t.Error("README.md's example is not examples/quickstart/main.go: copy the file into it")
	}
}
