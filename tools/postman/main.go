// Command postman writes a Postman collection (v2.1) generated from tiyin's OpenAPI document:
// the whole process as a runnable flow, in process order, each step an operation of the
// document (its method, path and summary come from there, so a step cannot name an operation
// that is gone), with the ids each answer gives passed on through collection variables, the
// sandbox clock and SMS outbox where the flow needs them, and tests on every answer. newman runs
// it against a sandbox server in CI. It is deterministic, so `make lint` can tell a stale
// collection.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	Event   any    `json:"event,omitempty"`
	Request struct {
		Method      string     `json:"method"`
		Header      []variable `json:"header"`
		Body        any        `json:"body"`
		URL         any        `json:"url"`
		Description string     `json:"description,omitempty"`
		Auth        any        `json:"auth,omitempty"`
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
	ops := map[string]operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[op.OperationID] = operation{method: method, path: path, op: op}
		}
	}
	sum := sha256.Sum256([]byte("tiyin postman collection"))
	c := collection{
		Info: info{PostmanID: uuid.Must(uuid.FromBytes(sum[:16])).String(), Name: doc.Info.Title + " " + doc.Info.Version + ": the whole process",
			Description: "Generated from tiyin's OpenAPI document (make generate); do not edit.\n\n" +
				"The whole microloan process against a sandbox server, in order: run the collection (Postman's runner, or " +
				"`npx newman run postman/tiyin.postman_collection.json --env-var baseUrl=http://localhost:8080 --env-var apiKey=<key>`). " +
				"Each step sends a fresh envelope id, passes on the ids earlier answers gave (collection variables), " +
				"and tests its answer; steps that wait for the bank ask again until the answer is there.",
			Schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
		Auth:     map[string]any{"type": "bearer", "bearer": []map[string]string{{"key": "token", "value": "{{apiKey}}", "type": "string"}}},
		Variable: []variable{{"baseUrl", "http://localhost:8080"}, {"apiKey", ""}},
	}
	for _, f := range flow {
		fo := folder{Name: f.name, Description: f.description}
		for _, st := range f.steps {
			o, ok := ops[st.operation]
			if !ok {
				return fmt.Errorf("step %q: the document has no operation %s", st.name, st.operation)
			}
			fo.Item = append(fo.Item, st.request(o))
		}
		c.Item = append(c.Item, fo)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644) //nolint:gosec // a file of the repository, for everyone to read
}

// operation is one operation of the document.
type operation struct {
	method, path string
	op           *openapi3.Operation
}

// request renders the step as a Postman request with its scripts.
func (st step) request(o operation) request {
	var r request
	r.Name = st.name
	r.Request.Method = strings.ToUpper(o.method)
	r.Request.Description = o.op.Summary
	r.Request.Header = []variable{{"Content-Type", "application/json"}}
	r.Request.URL = map[string]any{"raw": "{{baseUrl}}" + o.path, "host": []string{"{{baseUrl}}"},
		"path": strings.Split(strings.TrimPrefix(o.path, "/"), "/")}
	id := st.id
	if id == "" {
		id = "{{$guid}}"
	}
	raw := `{"id": "` + id + `", "params": ` + st.params + `}`
	if st.raw != "" {
		raw = st.raw
	}
	r.Request.Body = map[string]any{"mode": "raw", "raw": raw, "options": map[string]any{"raw": map[string]string{"language": "json"}}}
	if st.key != "" {
		r.Request.Auth = map[string]any{"type": "bearer", "bearer": []map[string]string{{"key": "token", "value": st.key, "type": "string"}}}
	}
	if st.code != 0 {
		// A failure: the envelope carries the code, and no result.
		events := []map[string]any{{"listen": "test", "script": map[string]any{"type": "text/javascript", "exec": []string{
			`const body = pm.response.json();`,
			fmt.Sprintf(`pm.test("answers code %d", () => { pm.expect(body.error && body.error.code, JSON.stringify(body)).to.eql(%d); pm.expect(body.result).to.be.null; });`, st.code, st.code),
		}}}}
		if len(st.before) > 0 {
			events = append([]map[string]any{{"listen": "prerequest", "script": map[string]any{"type": "text/javascript", "exec": st.before}}}, events...)
		}
		r.Event = events
		return r
	}
	tests := []string{
		`const body = pm.response.json();`,
		`pm.test("the answer is an envelope without an error", () => { pm.expect(body).to.have.all.keys("id", "result", "error"); pm.expect(body.error, JSON.stringify(body.error)).to.be.null; });`,
		`const r = body.result;`,
	}
	if st.until != "" {
		// Ask again, a second apart, until the bank's answer is there (at most a minute).
		tests = append(tests,
			`const tries = Number(pm.collectionVariables.get("tries") || 0) + 1;`,
			`if (!(`+st.until+`) && tries < 60) { pm.collectionVariables.set("tries", tries); pm.execution.setNextRequest(pm.info.requestName); setTimeout(() => {}, 1000); return; }`,
			`pm.collectionVariables.set("tries", 0);`,
			`pm.test("the bank answered: `+strings.ReplaceAll(st.until, `"`, `'`)+`", () => pm.expect(`+st.until+`).to.be.true);`)
	}
	tests = append(tests, st.tests...)
	events := []map[string]any{{"listen": "test", "script": map[string]any{"type": "text/javascript", "exec": tests}}}
	if len(st.before) > 0 {
		events = append([]map[string]any{{"listen": "prerequest", "script": map[string]any{"type": "text/javascript", "exec": st.before}}}, events...)
	}
	r.Event = events
	return r
}
