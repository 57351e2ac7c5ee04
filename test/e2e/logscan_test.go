package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Every value a test sends in a secret or personal field, and every API key it uses, is
// remembered; when a server stops, each of its JSON log lines is searched for all of them
// (DESIGN.md §14: no PAN, OTP, key or clientData in any log line).

// secretFields are the request fields whose values must never be logged.
var secretFields = map[string]bool{"pan": true, "otpCode": true, "pinfl": true, "inn": true, "lastName": true,
	"firstName": true, "middleName": true, "email": true, "address": true, "cardHolderName": true, "birthDate": true}

type secrets struct {
	mu  sync.Mutex
	set map[string]string // value → what it is
}

func (s *secrets) add(value, kind string) {
	if len(value) < 4 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]string{}
	}
	s.set[value] = kind
}

// remember records the key and the secret fields of params, at any depth.
func (s *secrets) remember(key string, params any) {
	s.add(key, "an API key")
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if str, ok := val.(string); ok && secretFields[k] {
					s.add(str, k)
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(params)
}

var scanned struct{ lines, values atomic.Int64 }

var digits = regexp.MustCompile(`^[0-9]+$`)

// scan fails the test for each log line that shows a remembered value.
func (s *secrets) scan(t *testing.T, out string) {
	t.Helper()
	for _, leak := range s.leaks(out) {
		t.Error(leak)
	}
}

// leaks lists the log lines that show a remembered value. All-digit values (PANs, PINFLs,
// codes) count only as whole numbers, not inside a longer one.
func (s *secrets) leaks(out string) []string {
	var found []string
	s.mu.Lock()
	defer s.mu.Unlock()
	type matcher struct {
		kind string
		re   *regexp.Regexp
		text string
	}
	var ms []matcher
	for v, kind := range s.set {
		if digits.MatchString(v) {
			ms = append(ms, matcher{kind: kind, re: regexp.MustCompile(`(^|[^0-9])` + v + `([^0-9]|$)`)})
		} else {
			ms = append(ms, matcher{kind: kind, text: v})
		}
	}
	lines := 0
	for line := range strings.SplitSeq(out, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // the sandbox banner, which prints the sandbox key by design
		}
		lines++
		for _, m := range ms {
			if (m.re != nil && m.re.MatchString(line)) || (m.re == nil && strings.Contains(line, m.text)) {
				found = append(found, fmt.Sprintf("a log line shows %s: %s", m.kind, line))
			}
		}
	}
	scanned.lines.Add(int64(lines))
	scanned.values.Add(int64(len(ms)))
	return found
}

func TestLogScanFindsWhatItLooksFor(t *testing.T) {
	var s secrets
	s.remember("key-0123456789abcdef", map[string]any{"pan": "8600123456789012", "otpCode": "123456",
		"clientData": map[string]any{"lastName": "Karimov", "pinfl": "31234567890123"}, "amount": "100000"})
	out := strings.Join([]string{
		`tiyin sandbox key key-0123456789abcdef`, // the banner is not a log line
		`{"msg":"request","latency":0.0123456,"account":"20208000123456789012"}`,
		`{"msg":"x","card":"8600123456789012"}`,
		`{"msg":"x","auth":"Bearer key-0123456789abcdef"}`,
		`{"msg":"x","code":"123456"}`,
		`{"msg":"x","name":"KARIMOV Karimov"}`,
		`{"msg":"x","amount":100000}`,
	}, "\n")
	leaks := s.leaks(out)
	if len(leaks) != 4 {
		t.Fatalf("found %d leaks, want 4 (PAN, key, code, name):\n%s", len(leaks), strings.Join(leaks, "\n"))
	}
}

// reportScan prints the scan's figures once the tests have run.
func reportScan() {
	fmt.Fprintf(os.Stderr, "log scan: %d JSON log lines searched for %d secret values (keys, PANs, codes, clientData)\n",
		scanned.lines.Load(), scanned.values.Load())
}
