package server

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/domain"
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

var updateDocs = flag.Bool("update", false, "rewrite docs/configuration.md's table of the settings")

// TestTheConfigurationDocIsTheSettings: docs/configuration.md's table is made from the settings
// struct's tags, as serve --help is; run with -update after changing a setting.
func TestTheConfigurationDocIsTheSettings(t *testing.T) {
	const path = "../docs/configuration.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- settings:begin -->\n", "<!-- settings:end -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s: the settings markers are missing", path)
	}
	want := configurationTable()
	if got := string(doc[i+len(begin) : j]); got != want {
		if !*updateDocs {
			t.Fatalf("%s: the settings table differs from the settings struct; run go test ./server -run TestTheConfigurationDocIsTheSettings -update", path)
		}
		if err := os.WriteFile(path, []byte(string(doc[:i+len(begin)])+want+string(doc[j:])), 0o644); err != nil { //nolint:gosec // a file of the repository
			t.Fatal(err)
		}
	}
	for _, s := range settingList {
		if s.name == "" || s.help == "" {
			t.Errorf("setting %s lacks its env or help tag", s.field)
		}
	}
	for _, s := range settingList {
		if s.name == "TIYIN_GATEWAY_TIMEOUT" && s.def != guard.DefaultTimeout.String() {
			t.Errorf("TIYIN_GATEWAY_TIMEOUT's default %s is not the guard's %s", s.def, guard.DefaultTimeout)
		}
	}
}

// TestNoDocOrHelpCitesDESIGN: the README, the CHANGELOG, docs/*.md, the API document served at
// /openapi.yaml, the Makefile and every command's --help stand alone: none cites "DESIGN" (a
// document the project does not ship; the decisions it relies on are in docs/design-notes.md).
func TestNoDocOrHelpCitesDESIGN(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"../README.md", "../CHANGELOG.md", "../adapters/http/openapi.yaml", "../Makefile"}, docs...)
	if len(files) < 14 {
		t.Fatalf("only %d files found: the check is blind", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "DESIGN") {
				t.Errorf("%s:%d cites DESIGN: %s", f, i+1, line)
			}
		}
	}
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		var help bytes.Buffer
		c.SetOut(&help)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		seen++
		if strings.Contains(help.String(), "DESIGN") {
			t.Errorf("%s --help cites DESIGN:\n%s", c.CommandPath(), help.String())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCmd(options{}))
	if seen < 25 {
		t.Fatalf("only %d commands' help read: the check is blind", seen)
	}
}

// operatorCreated is the name an `operator create NAME` command line of a document gives.
var operatorCreated = regexp.MustCompile(`operator create\s+([^\s` + "`" + `]+)`)

// TestTheDocsCreateOperatorsByTheNameRule: every `operator create NAME` the README and docs/*.md
// show names an operator the command accepts (domain.ParseOperatorName), so a newcomer who
// pastes it gets an operator (issue 48: the README's `operator create me` was refused, a name
// being 3 characters at least). NAME itself is the placeholder of a usage line.
func TestTheDocsCreateOperatorsByTheNameRule(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range append([]string{"../README.md"}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range operatorCreated.FindAllStringSubmatch(line, -1) {
				if m[1] == "NAME" {
					continue
				}
				seen++
				if _, err := domain.ParseOperatorName(m[1]); err != nil {
					t.Errorf("%s:%d: operator create %s: %v\n%s", f, i+1, m[1], err, line)
				}
			}
		}
	}
	if seen < 3 {
		t.Fatalf("only %d operator create lines found: the check is blind", seen)
	}
}
