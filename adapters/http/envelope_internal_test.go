package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tiyin/tiyin/domain"
)

func TestCheckJSON(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20)
	tests := []struct {
		name, body, want string // want: "" accepted, else a part of the message
	}{
		{"plain envelope", `{"id":"x","params":{"a":1,"b":[1,2,{"c":3}]}}`, ""},
		{"same key in sibling objects", `{"params":{"a":[{"x":1},{"x":2}],"b":{"x":1},"x":3}}`, ""},
		{"key after a nested object", `{"a":{"b":1},"b":2}`, ""},
		{"duplicate at the top", `{"id":"a","params":{},"id":"b"}`, `the key "id" twice in the body`},
		{"duplicate in params", `{"params":{"amount":1,"amount":2}}`, `the key "amount" twice in params`},
		{"duplicate in a nested object", `{"params":{"clientData":{"pinfl":"1","pinfl":"2"}}}`, `twice in params.clientData`},
		{"duplicate in an array's object", `{"params":{"list":[{"x":1,"x":1}]}}`, `twice in params.list[]`},
		{"escaped duplicate", `{"params":{"a":1,"\u0061":2}}`, `the key "a" twice`},
		{"deep nesting", deep, "nested deeper than 16"},
		{"invalid UTF-8 in a string", "{\"params\":{\"cardHolderName\":\"\xff\xfe\"}}", "not valid UTF-8"},
		{"overlong UTF-8", "{\"params\":{\"a\":\"\xc0\xaf\"}}", "not valid UTF-8"},
	}
	for _, tt := range tests {
		err := checkJSON([]byte(tt.body))
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

// FuzzReadRequest: the envelope decoder never panics; what it accepts has a UUID id and an
// object of params, and what it refuses is a clean validation or malformed-request error.
func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		`{"id":"3b241101-e2bb-4255-8caf-4136c566a962","params":{}}`,
		`{"id":"3b241101-e2bb-4255-8caf-4136c566a962","params":{"a":1,"a":2}}`,
		`{"id":1,"params":[]}`, `[]`, `null`, `{"id":"x"`, "{\"id\":\"\xff\"}", `{"params":{"x":1e999}}`,
	} {
		f.Add([]byte(s))
	}
	e := echo.New()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		r, err := readRequest(e.NewContext(req, httptest.NewRecorder()))
		if err != nil {
			var ae *apiError
			var ve *domain.ValidationError
			if !errors.As(err, &ae) && !errors.As(err, &ve) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			if code, _, msg := classify(err); (code != codeMalformed && code != codeValidation) || msg == "" {
				t.Fatalf("code %d %q", code, msg)
			}
			return
		}
		if !isUUID(r.id) {
			t.Fatalf("accepted id %q", r.id)
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(r.params, &params) != nil {
			t.Fatalf("accepted params %q", r.params)
		}
	})
}
