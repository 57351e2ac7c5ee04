package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	httpadapter "github.com/tiyin/tiyin/adapters/http"
	"github.com/tiyin/tiyin/adapters/store"
)

// newmanVersion runs the Postman collection, from npm.
const newmanVersion = "newman@6.2.1"

// TestThePostmanCollectionRunsTheWholeProcess: newman runs postman/tiyin.postman_collection.json
// against a sandbox server, and every request and every test in it passes: the whole process,
// then every error code a partner can meet (the collection asserts each business code, and the
// request codes 2, 4, 5 and 8).
func TestThePostmanCollectionRunsTheWholeProcess(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npx is missing: CI runs the Postman collection with newman from npm")
		}
		t.Skip("SKIPPED: npx is not installed, so newman cannot run")
	}
	collection, err := os.ReadFile("../../postman/tiyin.postman_collection.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range httpadapter.ErrorCodes {
		asserted := strings.Contains(string(collection), fmt.Sprintf("answers code %d", c.Code)) ||
			strings.Contains(string(collection), fmt.Sprintf("lastTask.errorCode %d", c.Code))
		if (c.Code >= 1000 || c.Code == 2 || c.Code == 4 || c.Code == 5 || c.Code == 8) && !asserted {
			t.Errorf("the collection never provokes code %d (%s)", c.Code, c.Meaning)
		}
	}
	s := start(t, store.SQLite)
	report := filepath.Join(t.TempDir(), "newman.json")
	cmd := exec.Command("npx", "--yes", newmanVersion, "run", "../../postman/tiyin.postman_collection.json",
		"--env-var", "baseUrl="+s.url, "--env-var", "apiKey="+s.key, "--reporters", "cli,json", "--reporter-json-export", report)
	out, err := cmd.CombinedOutput()
	b, rerr := os.ReadFile(report)
	var r struct {
		Run struct {
			Stats map[string]struct{ Total, Failed int }
		}
	}
	if rerr != nil || json.Unmarshal(b, &r) != nil {
		t.Fatalf("newman left no report (%v, %v):\n%s", err, rerr, out)
	}
	st := r.Run.Stats
	if err != nil || st["requests"].Failed != 0 || st["assertions"].Failed != 0 || st["testScripts"].Failed != 0 ||
		st["requests"].Total < 70 || st["assertions"].Total < 110 {
		t.Fatalf("newman: %v, stats %+v\n%s", err, st, out)
	}
	t.Logf("newman: %d requests, %d assertions, none failed", st["requests"].Total, st["assertions"].Total)
}
