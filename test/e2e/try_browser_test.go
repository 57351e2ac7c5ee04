package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
)

// TestTheDocsTryItConsoleCallsTheSandbox: /docs/try (Stoplight Elements, served by the binary
// under the same strict CSP as /docs) sends a call from the browser to the server that serves
// it: with the sandbox key typed into its Token field, "Send API Request" on the sandbox clock
// answers the clock; without it, code 2.
func TestTheDocsTryItConsoleCallsTheSandbox(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	s := start(t, store.SQLite)
	answer := func(key string) string {
		t.Helper()
		b := newBrowser(t, exe)
		var text string
		err := chromedp.Run(b,
			chromedp.Navigate(s.url+"/docs/try#/operations/advanceClock"),
			chromedp.WaitVisible(`//button[contains(., "Send API Request")]`),
		)
		if err == nil && key != "" {
			err = chromedp.Run(b, chromedp.SendKeys(`input[placeholder="123"]`, key, chromedp.ByQuery))
		}
		if err == nil {
			err = chromedp.Run(b, chromedp.Click(`//button[contains(., "Send API Request")]`), shot("docs-try"))
		}
		for end := time.Now().Add(20 * time.Second); err == nil && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if err = chromedp.Run(b, chromedp.Text("body", &text)); strings.Contains(text, `"error"`) {
				return text
			}
		}
		t.Fatalf("no answer in the console (%v):\n%.3000s", err, text)
		return ""
	}
	if got := answer(s.key); !strings.Contains(got, `"now"`) || !strings.Contains(got, `"error": null`) {
		t.Errorf("the sandbox clock's answer with the key:\n%.3000s", got)
	}
	if got := answer(""); !strings.Contains(got, `"code": 2`) {
		t.Errorf("the answer without a key:\n%.3000s", got)
	}
}
