package console

import (
	"encoding/csv"
	"net/url"
	"strings"
	"testing"
)

// TestSafeNextKeepsRedirectsOnTheConsole: a post-login redirect (next) or an action's way
// back (back) is a console path, whatever encoding a browser would normalise: a backslash
// (which browsers read as a slash), "..", "//", tabs and newlines (which browsers drop), a
// scheme. The open redirect of issue 33 was "/console/../%5Cevil.example/".
func TestSafeNextKeepsRedirectsOnTheConsole(t *testing.T) {
	t.Parallel()
	base := must(url.Parse("http://127.0.0.1:9090/console/login"))
	for _, tt := range []struct{ next, want string }{
		{"/console/loans/1?tab=schedule", "/console/loans/1?tab=schedule"},
		{"/console/", "/console/"},
		{"/console", "/console"},
		{"/console/a/../b", "/console/b"},
		{"/console/../%5Cevil.example/", Prefix},
		{"/console/..%2F..%2F%5Cevil.example", Prefix},
		{"/console/%2e%2e/%2e%2e/evil.example", Prefix},
		{"/console/../../evil.example", Prefix},
		{"/console/\\evil.example", Prefix},
		{"/\\evil.example/console/", Prefix},
		{"//evil.example/console/", Prefix},
		{"///evil.example/console/", Prefix},
		{"/console/\t/evil", Prefix},
		{"/%09/evil.example/console/", Prefix},
		{"/console/%0d%0aLocation:%20http://evil", Prefix},
		{"https://evil.example/console/", Prefix},
		{"javascript:alert(1)//console/", Prefix},
		{"http:/console/", Prefix},
		{"/consoleevil", Prefix},
		{"", Prefix},
	} {
		got := safeNext(tt.next)
		if got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
		// Whatever comes out resolves, from the login page, to a console path on the same host.
		to := base.ResolveReference(must(url.Parse(got)))
		if to.Host != base.Host || !strings.HasPrefix(to.Path, "/console") || strings.Contains(got, "\\\\") {
			t.Errorf("safeNext(%q) = %q leads to %s", tt.next, got, to)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCSVCellsAreDefused: every exported field is quoted (a ";" inside one is not a separator
// for any locale) and a field a spreadsheet would run as a formula starts with an apostrophe.
func TestCSVCellsAreDefused(t *testing.T) {
	t.Parallel()
	row := csvRow("plain", "=HYPERLINK(\"http://evil\")", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "x;=cmd()", "a\"b")
	want := `"plain","'=HYPERLINK(""http://evil"")","'+1","'-1","'@SUM(A1)","'` + "\tx" + `","'` + "\rx" + `","x;=cmd()","a""b"` + "\r\n"
	if row != want {
		t.Fatalf("row %q\nwant %q", row, want)
	}
	rows, err := csv.NewReader(strings.NewReader(row)).ReadAll()
	if err != nil || len(rows) != 1 || len(rows[0]) != 9 || rows[0][7] != "x;=cmd()" {
		t.Fatalf("read back %q, %v", rows, err)
	}
}
