package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTheModulesDeclareTheGoTheReadmeNames: each module declares the lowest Go release that
// builds it (a .0 patch), of the Go the README asks for, so an older toolchain of that release
// does not try to download a newer one (which fails offline).
func TestTheModulesDeclareTheGoTheReadmeNames(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`You need Go (1\.\d+)`).FindSubmatch(readme)
	if want == nil {
		t.Fatal("README names no Go release")
	}
	for _, mod := range []string{"../../go.mod", "../../examples/bank/go.mod"} {
		b, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		got := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(b)
		if got == nil || string(got[1]) != string(want[1])+".0" {
			t.Errorf("%s declares go %s; the README asks for Go %s, so it declares %s.0", strings.TrimPrefix(mod, "../../"), got[1], want[1], want[1])
		}
	}
}
