package http_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheSandboxGuideIsInTheDocument: the sandbox's magic values, its paths and the application
// statuses and stages are in the API document that /docs renders, as docs/integration.md has
// them. Run `go test ./adapters/http -run TestTheSandboxGuideIsInTheDocument -update` after
// changing them in docs/integration.md.
func TestTheSandboxGuideIsInTheDocument(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "integration.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	const indent = "      "
	for _, name := range []string{"sandbox-values", "sandbox-paths", "application-stages"} {
		body, _, ok := block(string(guide), "", name)
		if !ok {
			t.Fatalf("docs/integration.md: %s markers missing", name)
		}
		var want strings.Builder
		for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
			want.WriteString(indent + line + "\n")
		}
		got, at, ok := block(text, indent, name)
		if !ok {
			t.Fatalf("openapi.yaml: %s markers missing", name)
		}
		if got == want.String() {
			continue
		}
		if *update {
			text = text[:at] + want.String() + text[at+len(got):]
			continue
		}
		t.Errorf("openapi.yaml: %s differs from docs/integration.md; run with -update", name)
	}
	if *update {
		if err := os.WriteFile("openapi.yaml", []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// block is the text between name's markers (each on its own line, after indent), and where it
// starts.
func block(text, indent, name string) (string, int, bool) {
	begin, end := indent+"<!-- "+name+":begin -->\n", indent+"<!-- "+name+":end -->"
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	if i < 0 || j < i+len(begin) {
		return "", 0, false
	}
	return text[i+len(begin) : j], i + len(begin), true
}
