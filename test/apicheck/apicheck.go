// Package apicheck validates requests and responses against tiyin's OpenAPI document, so that
// every exchange a test makes also proves the document right.
package apicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	httpadapter "github.com/tiyin/tiyin/adapters/http"
)

// Validator checks exchanges against the document, and records the error codes it saw.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	errors *openapi3.Schema
	mu     sync.Mutex
	seen   map[int]bool
}

var (
	once   sync.Once
	shared *Validator
	err    error
)

// New returns the validator of the embedded document, failing the test if the document itself
// is invalid.
func New(t testing.TB) *Validator {
	t.Helper()
	once.Do(func() {
		loader := openapi3.NewLoader()
		var doc *openapi3.T
		doc, err = loader.LoadFromData(httpadapter.OpenAPI)
		if err != nil {
			return
		}
		if err = doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
			return
		}
		doc.Servers = nil // match any host
		var r routers.Router
		r, err = gorillamux.NewRouter(doc)
		if err != nil {
			return
		}
		shared = &Validator{doc: doc, router: r, errors: doc.Components.Schemas["ErrorResponse"].Value, seen: map[int]bool{}}
	})
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return shared
}

// Check validates one exchange. A successful answer must answer a request the document allows,
// with the documented result; an error answer must be a documented error envelope.
func (v *Validator) Check(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	t.Helper()
	v.record(body)
	if status != http.StatusOK {
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("%s %s: error body is not JSON: %s", req.Method, req.URL.Path, body)
			return
		}
		if err := v.errors.VisitJSON(doc); err != nil {
			t.Errorf("%s %s: error body breaks ErrorResponse: %v\n%s", req.Method, req.URL.Path, err, body)
		}
		return
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		t.Errorf("%s %s answered 200 but is not in the document: %v", req.Method, req.URL.Path, err)
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	r2 := req.Clone(context.Background())
	r2.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		t.Errorf("%s %s: a request that succeeded breaks the document: %v\n%s", req.Method, req.URL.Path, err, reqBody)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: response breaks the document: %v\n%s", req.Method, req.URL.Path, err, body)
	}
}

// Paths lists the document's operations as "METHOD /path".
func (v *Validator) Paths() []string {
	var out []string
	for path, item := range v.doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	return out
}

// CheckEvent validates a webhook body against the document's WebhookEvent schema.
func (v *Validator) CheckEvent(t testing.TB, body []byte) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Errorf("webhook body is not JSON: %s", body)
		return
	}
	if err := v.doc.Components.Schemas["WebhookEvent"].Value.VisitJSON(doc); err != nil {
		t.Errorf("webhook body breaks WebhookEvent: %v\n%s", err, body)
	}
}

// Summaries lists the summaries of the document's operations, webhooks included.
func (v *Validator) Summaries() []string {
	var out []string
	for _, item := range v.doc.Paths.Map() {
		for _, op := range item.Operations() {
			out = append(out, op.Summary)
		}
	}
	return out
}

// record notes the envelope's error code, and a stage's errorCode (1024–1027) in a result.
func (v *Validator) record(body []byte) {
	var env struct {
		Error  *struct{ Code int }
		Result struct {
			LastTask *struct{ ErrorCode *int }
		}
	}
	if json.Unmarshal(body, &env) != nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if env.Error != nil {
		v.seen[env.Error.Code] = true
	}
	if lt := env.Result.LastTask; lt != nil && lt.ErrorCode != nil {
		v.seen[*lt.ErrorCode] = true
	}
}

// Loaded returns the validator New made, nil when no test made one.
func Loaded() *Validator { return shared }

// Seen reports whether an answer with the error code went through Check.
func (v *Validator) Seen(code int) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.seen[code]
}

// MissingExamples lists the operations without a request example or a 200 answer example.
func (v *Validator) MissingExamples() []string {
	var out []string
	for path, item := range v.doc.Paths.Map() {
		for method, op := range item.Operations() {
			req := op.RequestBody != nil && op.RequestBody.Value.Content.Get("application/json") != nil &&
				op.RequestBody.Value.Content.Get("application/json").Example != nil
			ok := op.Responses.Status(200)
			resp := ok != nil && ok.Value.Content.Get("application/json") != nil && ok.Value.Content.Get("application/json").Example != nil
			if !req || !resp {
				out = append(out, method+" "+path)
			}
		}
	}
	return out
}
