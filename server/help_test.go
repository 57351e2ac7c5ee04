package server

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestServeHelpNamesEveryVariable: serve --help and docs/configuration.md name the same
// variables (those of the test suites and the load harness aside).
func TestServeHelpNamesEveryVariable(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`TIYIN_[A-Z_]+[A-Z]`)
	var documented []string
	for _, n := range names.FindAllString(string(doc), -1) {
		if !strings.Contains(n, "_TEST_") && !strings.Contains(n, "_BENCH_") && !slices.Contains(documented, n) {
			documented = append(documented, n)
		}
	}
	help := serveCmd(options{}).Long
	for _, n := range documented {
		if !regexp.MustCompile(`\b` + n + `\b`).MatchString(help) {
			t.Errorf("serve --help does not name %s", n)
		}
	}
	for _, n := range names.FindAllString(help, -1) {
		if !slices.Contains(documented, n) {
			t.Errorf("serve --help names %s, which docs/configuration.md does not", n)
		}
	}
	if len(documented) < 30 {
		t.Fatalf("only %d variables found in docs/configuration.md: the check is blind", len(documented))
	}
}
