// Command load is a small closed-loop load generator for a running tiyin: C workers send
// requests for D and it reports requests/s, p50, p99 and errors per scenario. It first measures
// a bare echo server (started in this process) that decodes and encodes the same envelope, so
// every figure is quoted as a ratio against a ceiling measured in the same run on the same
// machine.
//
//	go run ./test/load -url http://127.0.0.1:8080 -key KEY -c 16 -d 10s
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "tiyin base URL")
	key := flag.String("key", os.Getenv("TIYIN_KEY"), "partner API key")
	conc := flag.Int("c", 16, "concurrent workers")
	dur := flag.Duration("d", 10*time.Second, "duration of each scenario")
	flag.Parse()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc * 2}}
	baseline := startBaseline()

	api := caller{client: client, base: *base, key: *key}
	app, loanID := api.issuedLoan()
	infoBody := func() []byte { return envelope(map[string]any{"applicationId": app}) }
	loanBody := func() []byte { return envelope(map[string]any{"loanId": loanID}) }
	registerBody := func() []byte { return envelope(registerParams()) }

	results := []result{
		run(client, "baseline (bare echo)", baseline+"/x", "", *conc, *dur, infoBody),
		run(client, "application info", *base+"/microloans/applications/info", *key, *conc, *dur, infoBody),
		run(client, "loan schedule", *base+"/microloans/schedule", *key, *conc, *dur, loanBody),
		run(client, "repayment check", *base+"/repayment/loans/check", *key, *conc, *dur, loanBody),
		run(client, "pre-scoring register", *base+"/microloans/applications/pre-scoring/register", *key, *conc, *dur, registerBody),
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\trequests/s\tp50\tp99\terrors\tvs baseline\t")
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%.0f\t%s\t%s\t%d\t%.2f\t\n", r.name, r.rps, r.p50.Round(10*time.Microsecond),
			r.p99.Round(10*time.Microsecond), r.errors, r.rps/results[0].rps)
	}
	_ = w.Flush()
}

type result struct {
	name     string
	rps      float64
	p50, p99 time.Duration
	errors   int64
}

func run(client *http.Client, name, url, key string, conc int, dur time.Duration, body func() []byte) result {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		wg        sync.WaitGroup
	)
	stop := time.Now().Add(dur)
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			for time.Now().Before(stop) {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body()))
				req.Header.Set("Content-Type", "application/json")
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				t := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				local = append(local, time.Since(t))
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(float64(len(latencies)-1)*p)]
	}
	return result{name: name, rps: float64(len(latencies)) / elapsed.Seconds(), p50: pct(0.5), p99: pct(0.99), errors: errs.Load()}
}

func envelope(params any) []byte {
	b, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
	return b
}

func registerParams() map[string]any {
	return map[string]any{"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": "998901234567",
		"clientData": map[string]any{
			"pinfl": "31234567890123", "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
			"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567",
				"issuedBy": "Toshkent IIB", "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"},
			"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
			"phone":   "998901234567"}}
}

// caller sends one request at a time to tiyin and decodes the result.
type caller struct {
	client    *http.Client
	base, key string
}

func (c caller) post(path string, params any) map[string]any {
	req, _ := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(envelope(params)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.client.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load: is tiyin running?", err)
		os.Exit(1)
	}
	defer func() { _ = resp.Body.Close() }()
	var r struct {
		Result map[string]any
		Error  any
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
		fmt.Fprintf(os.Stderr, "load: %s failed (%v): %v\n", path, err, r.Error)
		os.Exit(1)
	}
	return r.Result
}

// issuedLoan walks one application to an issued loan with its contract number, moving the
// sandbox clock past the contract delay. It needs tiyin in sandbox mode.
func (c caller) issuedLoan() (app, loanID string) {
	app, _ = c.post("/microloans/applications/pre-scoring/register", registerParams())["applicationId"].(string)
	c.waitFor(app, "PENDING")
	c.post("/microloans/applications/verify", map[string]any{"applicationId": app, "amount": 300_000_000,
		"percent": 28.0, "monthPeriod": 12, "backupPhone": "998911112233"})
	c.post("/microloans/applications/issue", map[string]any{"applicationId": app,
		"clientData": registerParams()["clientData"]})
	c.waitFor(app, "COMPLETED")
	c.post("/sandbox/clock/advance", map[string]any{"duration": "31m"})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if id, ok := c.post("/microloans/info", map[string]any{"applicationId": app})["loanId"].(string); ok {
			return app, id
		}
	}
	fmt.Fprintln(os.Stderr, "load: no contract number 31 minutes after issuance")
	os.Exit(1)
	return "", ""
}

func (c caller) waitFor(app, status string) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c.post("/microloans/applications/info", map[string]any{"applicationId": app})["status"] == status {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "load: application %s never reached %s\n", app, status)
	os.Exit(1)
}

// startBaseline serves the ceiling: decode the envelope, encode an answer, nothing else.
func startBaseline() string {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/x", func(c echo.Context) error {
		var env struct {
			ID     string          `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&env); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"id": env.ID, "result": map[string]any{"ok": true}, "error": nil})
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String()
}
