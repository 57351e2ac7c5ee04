package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// maxDepth is the deepest nesting a request may have; the deepest the API needs is 3
// (envelope, params, clientData).
const maxDepth = 16

// checkJSON refuses what encoding/json would silently accept but a careful reader must not:
// invalid UTF-8 (json replaces it with U+FFFD), a key given twice in one object (json keeps
// the last, another parser the first: the request would mean two things), and absurd nesting.
func checkJSON(body []byte) error {
	if !utf8.Valid(body) {
		return errors.New("request body is not valid UTF-8")
	}
	type frame struct {
		keys      map[string]bool // nil for an array
		expectKey bool
		path, key string
	}
	var stack []*frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	valueEnded := func() {
		if f := top(); f != nil && f.keys != nil {
			f.expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return errors.New("request body is not valid JSON")
		}
		f := top()
		if f != nil && f.keys != nil && f.expectKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				valueEnded()
				continue
			}
			key, _ := tok.(string)
			if f.keys[key] {
				where := f.path
				if where == "" {
					where = "the body"
				}
				return fmt.Errorf("request body has the key %q twice in %s", key, where)
			}
			f.keys[key], f.key, f.expectKey = true, key, false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= maxDepth {
				return fmt.Errorf("request body is nested deeper than %d levels", maxDepth)
			}
			n := &frame{} // the body's path is ""
			switch {
			case f != nil && f.keys == nil:
				n.path = f.path + "[]"
			case f != nil && f.path == "":
				n.path = f.key
			case f != nil:
				n.path = f.path + "." + f.key
			}
			if tok == json.Delim('{') {
				n.keys, n.expectKey = map[string]bool{}, true
			}
			stack = append(stack, n)
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		valueEnded()
	}
}
