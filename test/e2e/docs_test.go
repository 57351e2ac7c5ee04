package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
)

// chromium finds Debian's Chromium, which .ci/run installs. Without it the test says loudly that
// it skipped, and fails under CI=true.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: CI must install Debian's chromium package (.ci/run does)")
	}
	t.Skip("SKIPPED: chromium is not installed (apt-get install chromium); the /docs page was not checked")
	return ""
}

// headless runs Chromium on url with extra flags, offline from everything but the test server.
func headless(t *testing.T, bin, url string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=20000"}, flags...)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	return stdout.Bytes()
}

func TestDocsPageShowsEveryOperation(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	s := start(t, store.SQLite)
	dom := string(headless(t, bin, s.url+"/docs", "--dump-dom"))
	if !strings.Contains(dom, "tiyin") || !strings.Contains(dom, "Webhooks") {
		t.Fatalf("the page did not render the document:\n%.2000s", dom)
	}
	summaries := s.check.Summaries()
	if len(summaries) < 23 {
		t.Fatalf("the document has %d operations", len(summaries))
	}
	for _, sum := range summaries {
		if !strings.Contains(dom, sum) {
			t.Errorf("the page does not show %q", sum)
		}
	}
	// The screenshot is the test's artefact, for a person to look at.
	dir := os.Getenv("TIYIN_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot, err := filepath.Abs(filepath.Join(dir, "docs.png"))
	if err != nil {
		t.Fatal(err)
	}
	headless(t, bin, s.url+"/docs", "--window-size=1400,1000", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 10_000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s: %d bytes, %v", shot, len(png), err)
	}
	t.Logf("screenshot of /docs: %s", shot)
}
