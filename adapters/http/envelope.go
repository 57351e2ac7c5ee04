package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"reflect"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/domain"
)

// maxBody is the largest request body accepted.
const maxBody = 64 << 10

// request is a decoded envelope.
type request struct {
	id string // as sent: answers echo it
	// key is the idempotency key: id in lower case, so the same UUID written in upper case is
	// the same request, not a second one.
	key    string
	params json.RawMessage
}

// response is the envelope of every answer: the three keys are always present.
type response struct {
	ID     *string    `json:"id"`
	Result any        `json:"result"`
	Error  *api.Error `json:"error"`
}

// readRequest reads and checks the envelope. When the id is valid it is returned even if the
// rest fails, so the error can echo it.
func readRequest(c echo.Context) (request, error) {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
		return request{}, malformed("Content-Type must be application/json")
	}
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxBody+1))
	if err != nil {
		return request{}, malformed("request body could not be read")
	}
	if len(body) > maxBody {
		return request{}, malformed("request body is larger than 64 KiB")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		if json.Valid(body) {
			return request{}, malformed("request body must be a JSON object")
		}
		return request{}, malformed("request body is not valid JSON")
	}
	if err := checkJSON(body); err != nil {
		return request{}, malformed(err.Error())
	}
	var (
		req request
		fs  domain.Fieldset
	)
	var id string
	if raw, ok := top["id"]; !ok || isNull(raw) {
		fs.Add("id", "must not be empty")
	} else if err := json.Unmarshal(raw, &id); err != nil {
		fs.Add("id", "must be a UUID string")
	} else if !isUUID(id) {
		fs.Add("id", "must be a UUID")
	} else {
		req.id, req.key = id, strings.ToLower(id)
	}
	raw, ok := top["params"]
	if trimmed := bytes.TrimSpace(raw); !ok || len(trimmed) == 0 || trimmed[0] != '{' {
		fs.Add("params", "must be an object")
	} else {
		req.params = raw
	}
	return req, fs.Err()
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// isUUID accepts the canonical 36-character form only.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// parseUUID reads a UUID field.
func parseUUID(s string) (uuid.UUID, error) {
	if !isUUID(s) {
		return uuid.Nil, errors.New("must be a UUID")
	}
	return uuid.Parse(s)
}

// decodeParams decodes params into the generated type T field by field, recording in fs every
// field of the wrong JSON type and every missing required field, by its JSON path. Fields that
// failed keep their zero value; later checks of the same path are skipped by the Fieldset.
func decodeParams[T any](raw json.RawMessage, fs *domain.Fieldset) T {
	var p T
	decodeObject(raw, reflect.ValueOf(&p).Elem(), "params", fs)
	return p
}

// field is one JSON field of a generated struct.
type field struct {
	index    int
	name     string
	required bool // not a pointer and no omitempty: how oapi-codegen marks required fields
	object   bool // a nested object, decoded field by field too
}

var fieldCache sync.Map // reflect.Type → []field

func fieldsOf(t reflect.Type) []field {
	if v, ok := fieldCache.Load(t); ok {
		return v.([]field)
	}
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		required := !strings.Contains(opts, "omitempty") && ft.Kind() != reflect.Pointer
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out = append(out, field{index: i, name: name, required: required, object: ft.Kind() == reflect.Struct})
	}
	fieldCache.Store(t, out)
	return out
}

func decodeObject(raw json.RawMessage, v reflect.Value, path string, fs *domain.Fieldset) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		fs.Add(path, "must be an object")
		return
	}
	for _, f := range fieldsOf(v.Type()) {
		fpath := path + "." + f.name
		val, ok := obj[f.name]
		if !ok || isNull(val) {
			if f.required {
				fs.Add(fpath, "is required")
			}
			continue
		}
		target := v.Field(f.index)
		if target.Kind() == reflect.Pointer {
			target.Set(reflect.New(target.Type().Elem()))
			target = target.Elem()
		}
		if f.object {
			decodeObject(val, target, fpath, fs)
			continue
		}
		if err := json.Unmarshal(val, target.Addr().Interface()); err != nil {
			fs.Add(fpath, "must be "+jsonKind(target.Type()))
		}
	}
}

var decimalType = reflect.TypeFor[api.Decimal]()

func jsonKind(t reflect.Type) string {
	if t == decimalType {
		return "a number"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number within range, written without exponent or quotes"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// encodeResponse renders the envelope of an answer: the result, or the error when code is set.
func encodeResponse(id string, result any, code int, message string) []byte {
	r := response{Result: result}
	if id != "" {
		r.ID = &id
	}
	if code != 0 {
		r.Result = nil
		r.Error = &api.Error{Code: code, Message: message}
	}
	b, err := marshal(r)
	if err != nil {
		b, _ = marshal(response{ID: r.ID, Error: &api.Error{Code: codeInternal, Message: "internal error"}})
	}
	return b
}

// marshal is json.Marshal without the escaping of <, > and & meant for HTML: an envelope is
// sent as application/json with X-Content-Type-Options: nosniff, never rendered as a page, so
// a partner reading it with curl sees "Bearer <key>", not "Bearer \u003ckey\u003e".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeJSON(c echo.Context, status int, body []byte) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(body)
	return err
}
