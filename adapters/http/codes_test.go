package http_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	httpadapter "github.com/tiyin/tiyin/adapters/http"
	"github.com/tiyin/tiyin/client"
)

var update = flag.Bool("update", false, "rewrite the error code tables in docs/integration.md and openapi.yaml")

// renderCodes is the error code table as README and the OpenAPI document carry it.
func renderCodes(indent string) string {
	var b strings.Builder
	b.WriteString(indent + "| code | HTTP | meaning |\n" + indent + "|---|---|---|\n")
	for _, c := range httpadapter.ErrorCodes {
		fmt.Fprintf(&b, "%s| %d | %s | %s |\n", indent, c.Code, c.HTTP, c.Meaning)
	}
	return b.String()
}

// TestErrorCodeTablesAgree keeps the one Go table, docs/integration.md's and the OpenAPI document's equal.
// Run `go test ./adapters/http -run TestErrorCodeTablesAgree -update` after changing the table.
func TestErrorCodeTablesAgree(t *testing.T) {
	t.Parallel()
	for _, doc := range []struct{ path, indent string }{
		{filepath.Join("..", "..", "docs", "integration.md"), ""},
		{"openapi.yaml", "    "},
	} {
		b, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		begin := doc.indent + "<!-- error-codes:begin -->\n"
		end := doc.indent + "<!-- error-codes:end -->"
		i, j := strings.Index(text, begin), strings.Index(text, end)
		if i < 0 || j < i {
			t.Fatalf("%s: error-codes markers missing", doc.path)
		}
		want := renderCodes(doc.indent)
		if got := text[i+len(begin) : j]; got != want {
			if *update {
				if err := os.WriteFile(doc.path, []byte(text[:i+len(begin)]+want+text[j:]), 0o600); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: error code table differs from ErrorCodes; run with -update\n got:\n%s\nwant:\n%s", doc.path, got, want)
		}
	}
}

// TestTheGoClientKnowsEveryCode: the client module's exported codes are the server's table,
// no more, no fewer, so errors.Is(err, client.CodeX) covers every answer a partner can meet.
func TestTheGoClientKnowsEveryCode(t *testing.T) {
	t.Parallel()
	server := map[int]bool{}
	for _, c := range httpadapter.ErrorCodes {
		server[c.Code] = true
	}
	known := map[int]bool{}
	for _, c := range client.Codes {
		if !server[int(c)] {
			t.Errorf("the client's code %d is not the server's", c)
		}
		known[int(c)] = true
	}
	for c := range server {
		if !known[c] {
			t.Errorf("the client lacks code %d", c)
		}
	}
}
