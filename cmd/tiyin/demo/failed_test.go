package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAFailedApplicationIsRegisteredAgain: an application that ends FAILED (the sandbox's faults
// kept a stage from its gateway five times in a row) ends the wait at once, and the demo
// registers a new one, as a partner's backend does, up to demoApplications; one that ends
// REJECTED ends the demo, naming why.
func TestAFailedApplicationIsRegisteredAgain(t *testing.T) {
	for _, tt := range []struct {
		status, task, taskStatus string
		code                     int
		registers                int32
		want                     error
		says                     string
	}{
		{"FAILED", "PRE_SCORING", "FAILED", 1027, demoApplications, errTechnicalFailure, "code 1027: gateway not reached"},
		{"REJECTED", "PRE_SCORING_INFO", "REJECTED", 1024, 1, nil, "REJECTED (PRE_SCORING_INFO/REJECTED, code 1024"},
		{"IN_PROGRESS", "PRE_SCORING", "IN_PROGRESS", 0, 1, errStillWaiting, "last seen IN_PROGRESS PRE_SCORING/IN_PROGRESS"},
	} {
		t.Run(tt.status, func(t *testing.T) {
			var registers atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var result string
				switch r.URL.Path {
				case "/microloans/applications/pre-scoring/register":
					registers.Add(1)
					result = `{"applicationId":"01a21a6c-8208-7935-8e3b-c9f7bbd74a6a"}`
				case "/microloans/applications/info":
					code, msg := "null", "null"
					if tt.code != 0 {
						code, msg = fmt.Sprint(tt.code), `"gateway not reached"`
					}
					result = fmt.Sprintf(`{"applicationId":"01a21a6c-8208-7935-8e3b-c9f7bbd74a6a","status":%q,`+
						`"lastTask":{"name":%q,"status":%q,"errorCode":%s,"errorMessage":%s},"preScoreResult":null}`,
						tt.status, tt.task, tt.taskStatus, code, msg)
				default:
					t.Errorf("the demo called %s", r.URL.Path)
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":null,"result":`+result+`,"error":null}`)
			}))
			defer srv.Close()
			var out bytes.Buffer
			d := &demo{url: srv.URL, key: "k", wait: 2 * time.Second, out: &out, progress: io.Discard}
			if err := d.connect(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := d.microloan(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("demo: %v, want an error saying %q", err, tt.says)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("demo: %v, want %v", err, tt.want)
			}
			if got := registers.Load(); got != tt.registers {
				t.Errorf("%d applications registered, want %d", got, tt.registers)
			}
			if !errors.Is(tt.want, errStillWaiting) && time.Since(start) > time.Second {
				t.Errorf("the demo waited %s for an application that can no longer move", time.Since(start))
			}
		})
	}
}
