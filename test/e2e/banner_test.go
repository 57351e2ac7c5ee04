package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
)

var (
	bannerExport  = regexp.MustCompile(`export TIYIN_URL=(\S+) TIYIN_KEY=(\S+)`)
	bannerCurl    = regexp.MustCompile(`\n    (curl [^\n]*\n[^\n]*)\n`)
	bannerConsole = regexp.MustCompile(`Operator console: http://(\S+)/console/ `)
)

// TestTheBannerSaysWhereTheSandboxAndTheConsoleAre: the banner a sandbox prints at start names
// the API's address and key in its export line, its curl check runs as pasted and answers the
// sandbox clock, and its console line names the admin listener's bound address, where the
// console answers: with TIYIN_ADMIN_ADDR=127.0.0.1:0 (as every e2e server has) it said
// http://127.0.0.1:0/console/ (issue 48).
func TestTheBannerSaysWhereTheSandboxAndTheConsoleAre(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	var banner string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(banner, "Operator console:"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no console line in the banner:\n%s", banner)
		}
		banner = s.out.String()
	}
	export := bannerExport.FindStringSubmatch(banner)
	if export == nil || export[1] != s.url || export[2] != s.key {
		t.Fatalf("the banner's export line is %q, want TIYIN_URL=%s TIYIN_KEY=%s", export, s.url, s.key)
	}
	check := bannerCurl.FindStringSubmatch(banner)
	if check == nil {
		t.Fatalf("no curl check in the banner:\n%s", banner)
	}
	cmd := exec.Command("bash", "-c", check[1])
	cmd.Env = append(os.Environ(), "TIYIN_URL="+export[1], "TIYIN_KEY="+export[2])
	out, err := cmd.Output()
	var answer struct {
		Result struct{ Now string } `json:"result"`
		Error  any                  `json:"error"`
	}
	if err != nil || json.Unmarshal(out, &answer) != nil || answer.Error != nil || answer.Result.Now == "" {
		t.Fatalf("the banner's curl check: %v\n%s\n%s", err, check[1], out)
	}
	console := bannerConsole.FindStringSubmatch(banner)
	if console == nil {
		t.Fatalf("no console address in the banner:\n%s", banner)
	}
	if _, port, err := net.SplitHostPort(console[1]); err != nil || port == "0" {
		t.Fatalf("the banner names the console at %s, not the port it listens on", console[1])
	}
	resp, err := http.Get("http://" + console[1] + "/console/login")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET http://%s/console/login: %s", console[1], resp.Status)
	}
}
