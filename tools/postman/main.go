// Command postman writes a Postman collection (v2.1) generated from tiyin's OpenAPI document,
// for partners who prefer Postman to curl: one request per operation, grouped by tag, with the
// document's example params, a fresh request id per send, and the key as a collection variable.
// It is deterministic, so `make lint` can tell a stale collection.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

type collection struct {
	Info     info       `json:"info"`
	Auth     any        `json:"auth"`
	Variable []variable `json:"variable"`
	Item     []folder   `json:"item"`
}

type info struct {
	PostmanID   string `json:"_postman_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Schema      string `json:"schema"`
}

type variable struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type folder struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Item        []request `json:"item"`
}

type request struct {
	Name    string `json:"name"`
	Request struct {
		Method      string     `json:"method"`
		Header      []variable `json:"header"`
		Body        any        `json:"body"`
		URL         any        `json:"url"`
		Description string     `json:"description,omitempty"`
	} `json:"request"`
}

func main() {
	in := flag.String("in", "adapters/http/openapi.yaml", "the OpenAPI document")
	out := flag.String("o", "postman/tiyin.postman_collection.json", "where to write the collection")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "postman:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	doc, err := openapi3.NewLoader().LoadFromFile(in)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte("tiyin postman collection"))
	c := collection{
		Info: info{PostmanID: uuid.Must(uuid.FromBytes(sum[:16])).String(), Name: doc.Info.Title + " " + doc.Info.Version,
			Description: "Generated from tiyin's OpenAPI document (make generate); do not edit.\n\n" +
				"Set the variables baseUrl (the server, e.g. http://localhost:8080) and apiKey (the key `tiyin serve` prints). " +
				"Every request sends a fresh envelope id ({{$guid}}); the params are the document's examples: replace the ids with yours.",
			Schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
		Auth:     map[string]any{"type": "bearer", "bearer": []map[string]string{{"key": "token", "value": "{{apiKey}}", "type": "string"}}},
		Variable: []variable{{"baseUrl", "http://localhost:8080"}, {"apiKey", ""}},
	}
	byTag := map[string]*folder{}
	var order []string
	for _, tag := range doc.Tags {
		byTag[tag.Name] = &folder{Name: tag.Name, Description: tag.Description}
		order = append(order, tag.Name)
	}
	paths := doc.Paths.InMatchingOrder()
	slices.Sort(paths)
	for _, path := range paths {
		ops := doc.Paths.Value(path).Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		for _, method := range methods {
			op := ops[method]
			r, err := toRequest(method, path, op)
			if err != nil {
				return fmt.Errorf("%s %s: %w", method, path, err)
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			f, ok := byTag[tag]
			if !ok {
				f = &folder{Name: tag}
				byTag[tag] = f
				order = append(order, tag)
			}
			f.Item = append(f.Item, r)
		}
	}
	for _, name := range order {
		if f := byTag[name]; len(f.Item) > 0 {
			c.Item = append(c.Item, *f)
		}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644) //nolint:gosec // a file of the repository, for everyone to read
}

func toRequest(method, path string, op *openapi3.Operation) (request, error) {
	var r request
	r.Name = op.Summary
	r.Request.Method = method
	r.Request.Description = op.Description
	r.Request.Header = []variable{{"Content-Type", "application/json"}}
	segments := strings.Split(strings.TrimPrefix(path, "/"), "/")
	r.Request.URL = map[string]any{"raw": "{{baseUrl}}" + path, "host": []string{"{{baseUrl}}"}, "path": segments}
	params := any(map[string]any{})
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil {
			if ex, ok := mt.Example.(map[string]any); ok && ex["params"] != nil {
				params = ex["params"]
			}
		}
	}
	body, err := json.MarshalIndent(map[string]any{"id": "{{$guid}}", "params": params}, "", "  ")
	if err != nil {
		return r, err
	}
	r.Request.Body = map[string]any{"mode": "raw", "raw": string(body), "options": map[string]any{"raw": map[string]string{"language": "json"}}}
	return r, nil
}
