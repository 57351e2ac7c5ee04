package http_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	httpadapter "github.com/tiyin/tiyin/adapters/http"
	"github.com/tiyin/tiyin/test/apicheck"
)

// TestMain runs the package's tests, then, on a full run, fails unless every documented error
// code was answered by some test: a code no test reaches is either dead or untested.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || flag.Lookup("test.run").Value.String() != "" || testing.Short() {
		os.Exit(code)
	}
	v := apicheck.Loaded()
	if v == nil {
		fmt.Fprintln(os.Stderr, "FAIL: no test checked an answer against the document")
		os.Exit(1)
	}
	var missing []int
	for _, c := range httpadapter.ErrorCodes {
		if !v.Seen(c.Code) {
			missing = append(missing, c.Code)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: documented error codes no test of this package answered: %v\n", missing)
		os.Exit(1)
	}
	os.Exit(code)
}
