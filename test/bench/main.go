// Command bench is tiyin's load harness (`make bench`). It starts the tiyin binary on a fresh
// PostgreSQL schema (or, with -db sqlite, a fresh SQLite file) in sandbox mode, measures in the
// same run the ceilings — a bare echo handler that decodes and encodes the same envelope, and raw
// single-row insert and primary-key select transactions through pgx on the same database — and
// then tiyin's scenarios, each at its saturation rate (closed loop) and at half of it (open
// loop, where p99 is judged). It prints one table and writes it as JSON for comparison
// between commits.
//
//	go run ./test/bench -bin bin/tiyin                    # PostgreSQL at $TIYIN_BENCH_DATABASE_URL
//	go run ./test/bench -bin bin/tiyin -db sqlite
//	go run ./test/bench -bin bin/tiyin -apps 100000 -soak 10m
//	go run ./test/bench -bin bin/tiyin -base bin/tiyin-base   # also the previous build, compared
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/tiyin/tiyin/test/tiyintest"
)

type config struct {
	bin, base, db, dbURL    string
	rounds                  int
	jsonPath                string
	only, admin             string
	conc, flows, pool, apps int
	loans                   int
	dur, flowDur, soak      time.Duration
	// halfRates, when set, is the rate each scenario is paced at for its p99 (by name): with
	// -base, half the base's saturation rate, so both builds' tails are read at one offered
	// load and a faster build is not judged at a higher one.
	halfRates map[string]float64
}

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "", "the tiyin binary (empty: build one)")
	flag.StringVar(&cfg.base, "base", "", "a second binary (the previous build) measured in the same run and compared with -bin")
	flag.IntVar(&cfg.rounds, "rounds", 2, "with -base: rounds of base then this build, each keeping its best figures")
	flag.StringVar(&cfg.db, "db", "postgres", "postgres or sqlite")
	flag.StringVar(&cfg.dbURL, "database-url", firstOf(os.Getenv("TIYIN_BENCH_DATABASE_URL"), os.Getenv("TIYIN_TEST_DATABASE_URL"),
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL to use (a fresh schema is made in it and dropped)")
	flag.IntVar(&cfg.conc, "c", 32, "concurrent clients of the saturation runs (32: as the shared write scripts' wrk)")
	flag.IntVar(&cfg.flows, "flows", 8, "concurrent lifecycle flows")
	flag.IntVar(&cfg.loans, "loans", 16, "issued loans the read and check scenarios take turns on, as a partner's many clients would")
	flag.IntVar(&cfg.pool, "pool", 20, "database pool size, of tiyin (TIYIN_DB_MAX_CONNS) and of the raw baselines")
	flag.DurationVar(&cfg.dur, "d", 8*time.Second, "duration of each measurement")
	flag.DurationVar(&cfg.flowDur, "flow-d", 20*time.Second, "duration of the lifecycle measurement")
	flag.IntVar(&cfg.apps, "apps", 0, "after the table: register this many applications and report tiyin's memory")
	flag.DurationVar(&cfg.soak, "soak", 0, "after the table: this long a mixed load at half the register rate, sampling tiyin's memory")
	flag.StringVar(&cfg.jsonPath, "json", "artifacts/bench.json", "where the results go as JSON (empty: nowhere)")
	flag.StringVar(&cfg.only, "only", "", "run only the scenarios whose name contains this (the ceilings always run)")
	flag.StringVar(&cfg.admin, "admin", "", "TIYIN_ADMIN_ADDR for tiyin, to profile it while the bench runs")
	flag.Parse()
	if dbURL := os.Getenv(minimalEnv); dbURL != "" {
		fmt.Fprintln(os.Stderr, "bench: minimal handler:", serveMinimal(dbURL))
		os.Exit(1)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func firstOf(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

const key = "bench-sandbox-key-0123456789abcdef"

// minimalName is the minimal info handler's row; its CPU column "tiyin" is the handler's process.
const minimalName = "minimal info handler (key check + one pgx read)"

// environment is the running tiyin, its database and the ceilings' database handle.
type environment struct {
	node   *tiyintest.Node
	dbURL  string // tiyin's PostgreSQL schema; empty on SQLite
	raw    *rawDB
	api    *client
	report report
}

func run(cfg config) error {
	if cfg.bin == "" {
		tmp, err := os.MkdirTemp("", "tiyin-bench-build-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(tmp) }()
		if cfg.bin, err = tiyintest.Build(".", tmp); err != nil {
			return err
		}
	}
	if cfg.base == "" {
		_, err := measureBinary(cfg, cfg.bin, true)
		return err
	}
	// The previous build and this one take turns (base, this, base, this …), each on a fresh
	// schema, and each keeps its best figures: a shared, noisy machine only ever slows a
	// measurement down, and taking turns gives both builds the same slow and fast minutes.
	baseCfg := cfg
	baseCfg.jsonPath = strings.TrimSuffix(cfg.jsonPath, ".json") + "-base.json"
	if cfg.jsonPath == "" {
		baseCfg.jsonPath = ""
	}
	var base, head report
	for round := range max(cfg.rounds, 1) {
		b, err := measureBinary(baseCfg, cfg.base, false)
		if err != nil {
			return fmt.Errorf("the base binary: %w", err)
		}
		if round == 0 {
			cfg.halfRates = b.halfRates()
			baseCfg.halfRates = cfg.halfRates
		}
		h, err := measureBinary(cfg, cfg.bin, false)
		if err != nil {
			return err
		}
		if round == 0 {
			base, head = b, h
		} else {
			base, head = base.best(b), head.best(h)
		}
	}
	base.Commit = cfg.base // commit() names the work tree, which is this build's
	fmt.Println("\n== base:", cfg.base)
	base.print(os.Stdout)
	fmt.Println("\n== this build:", cfg.bin)
	head.print(os.Stdout)
	if !compare(os.Stdout, base, head) {
		return fmt.Errorf("this build is slower than the base beyond the limits (rate ≥ %.2f×, p99 at ½ ≤ %.2f×)", minRateRatio, maxP99Ratio)
	}
	return nil
}

// measureBinary starts bin on a fresh database and measures every ceiling and scenario; printTable
// writes the table at once.
func measureBinary(cfg config, bin string, printTable bool) (report, error) {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "tiyin-bench-")
	if err != nil {
		return report{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	env := []string{"TIYIN_SANDBOX=true", "TIYIN_SANDBOX_API_KEY=" + key, "TIYIN_RATE_LIMIT=0", "TIYIN_LOAN_CONTRACT_DELAY=1s",
		fmt.Sprintf("TIYIN_DB_MAX_CONNS=%d", cfg.pool), "TIYIN_ADMIN_ADDR=" + firstOf(cfg.admin, "127.0.0.1:0"), "TIYIN_PPROF=true"}
	var dbURL, sqlitePath string
	switch cfg.db {
	case "postgres":
		var drop func()
		if dbURL, drop, err = freshSchema(ctx, cfg.dbURL); err != nil {
			return report{}, err
		}
		defer drop()
		env = append(env, "TIYIN_DATABASE_URL="+dbURL)
	case "sqlite":
		sqlitePath = filepath.Join(tmp, "tiyin.db")
		env = append(env, "TIYIN_SQLITE_PATH="+sqlitePath)
	default:
		return report{}, fmt.Errorf("-db %q: want postgres or sqlite", cfg.db)
	}
	log, err := os.Create(filepath.Join(tmp, "tiyin.log"))
	if err != nil {
		return report{}, err
	}
	defer func() { _ = log.Close() }()
	node := tiyintest.NewNode(bin, env...)
	node.Out = log
	if err := node.Start(); err != nil {
		return report{}, err
	}
	defer func() { _ = node.Stop() }()

	e := &environment{node: node, dbURL: dbURL, api: newClient(node.URL, key)}
	e.report = newReport(cfg)
	register := tiyintest.RegisterParams()
	body, _ := json.Marshal(register["clientData"])
	if e.raw, err = openRaw(ctx, dbURL, sqlitePath, cfg.pool, body); err != nil {
		return report{}, fmt.Errorf("raw baseline table: %w", err)
	}
	defer e.raw.Close()
	if err := e.measure(ctx, cfg); err != nil {
		return report{}, err
	}
	if printTable {
		e.report.print(os.Stdout)
	}
	if cfg.apps > 0 || cfg.soak > 0 {
		if err := e.memory(ctx, cfg); err != nil {
			return report{}, err
		}
	}
	if cfg.jsonPath != "" {
		if err := e.report.write(cfg.jsonPath); err != nil {
			return report{}, err
		}
		fmt.Println("results written to", cfg.jsonPath)
	}
	return e.report, nil
}

// measure runs every ceiling and scenario.
func (e *environment) measure(ctx context.Context, cfg config) error {
	echoURL, stopEcho := startEcho()
	defer stopEcho()
	echo := &client{http: e.api.http, base: echoURL}
	envelope := func() any { return map[string]any{"applicationId": uuid.NewString()} }
	// The echo and the select are measured at saturation only: at their rates (tens of
	// thousands a second) the open-loop sender, on the same two cores, would measure itself. The
	// raw insert is also paced at half its rate: the tail a bare commit has on this machine, to
	// read the writes' p99 at half rate against.
	e.report.add(e.saturate(cfg.conc, cfg.dur, "bare echo (HTTP ceiling)", kindCeiling, echo.op("/x", envelope)))
	e.report.add(e.saturate(cfg.conc, cfg.dur, "raw primary-key select (DB ceiling)", kindCeiling, e.raw.Select))
	insert := e.saturate(cfg.conc, cfg.dur, "raw single-row insert (DB ceiling)", kindCeiling, e.raw.Insert)
	half := pace(insert.Max.Rate()/2, cfg.dur, e.raw.Insert)
	insert.Half = &half
	e.report.add(insert)

	loans, err := e.api.issuedLoans(cfg.loans)
	if err != nil {
		return err
	}
	if e.dbURL != "" {
		minimalURL, pid, stopMinimal, err := startMinimal(e.dbURL, cfg.pool)
		if err != nil {
			return err
		}
		defer stopMinimal()
		minimal := &client{http: e.api.http, base: minimalURL, key: key}
		m := startCPU(pid)
		s := saturate(cfg.conc, cfg.dur, minimal.op("/microloans/applications/info", loans.byApp))
		e.report.add(row{Scenario: minimalName, Kind: kindCeiling, Max: s, CPU: m.per(s.Done)})
	}
	scenarios := []struct {
		name, kind string
		do         op
	}{
		{"application info", kindRead, e.api.op("/microloans/applications/info", loans.byApp)},
		{"loan schedule (12 months)", kindRead, e.api.op("/microloans/schedule", loans.byLoan)},
		{"repayment check", kindWrite, e.api.op("/repayment/loans/check", loans.byLoan)},
	}
	for _, sc := range scenarios {
		if strings.Contains(sc.name, cfg.only) {
			e.report.add(e.measureBoth(cfg, sc.name, sc.kind, sc.do))
		}
	}
	if strings.Contains(registerAccepted, cfg.only) || strings.Contains(registerEndToEnd, cfg.only) {
		rows, err := e.registerRows(cfg)
		if err != nil {
			return err
		}
		for _, r := range rows {
			e.report.add(r)
		}
	}
	if !strings.Contains("microloan lifecycle", cfg.only) {
		e.report.RSSAfter = e.node.RSS()
		return e.drain()
	}

	flow := func(context.Context) error {
		if o := tiyintest.Flow(e.api, 25*time.Millisecond); o.Err != nil {
			return o.Err
		}
		return nil
	}
	e.report.add(e.saturate(cfg.flows, cfg.flowDur, "microloan lifecycle (flows/s)", kindFlow, flow))
	e.report.RSSAfter = e.node.RSS()
	return e.drain()
}

// drain waits, up to a minute, until the job queue has caught up with the last scenario's
// background work, so it does not weigh on the next one.
func (e *environment) drain() error { return e.drainWithin(time.Minute) }

func (e *environment) drainWithin(limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		n, err := e.raw.Backlog(context.Background())
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
	return nil
}

// saturate measures do at saturation, with the CPU time each operation cost. The work an
// operation leaves to the job queue (a registration's pre-scoring) is part of it: the
// measurement ends when the queue has caught up, so the rate is what the machine sustains,
// not how fast requests can be accepted while their background work piles up.
func (e *environment) saturate(conc int, dur time.Duration, name, kind string, do op) row {
	m := startCPU(e.node.PID())
	s := saturate(conc, dur, do)
	start := time.Now()
	_ = e.drain()
	s.CatchUp = time.Since(start)
	s.Elapsed += s.CatchUp
	return row{Scenario: name, Kind: kind, Max: s, CPU: m.per(s.Done)}
}

// measureBoth measures do at saturation, then at half that rate (or at cfg.halfRates').
func (e *environment) measureBoth(cfg config, name, kind string, do op) row {
	r := e.saturate(cfg.conc, cfg.dur, name, kind, do)
	rate, ok := cfg.halfRates[name]
	if !ok {
		rate = r.Max.Rate() / 2
	}
	half := pace(rate, cfg.dur, do)
	r.Half = &half
	_ = e.drain()
	return r
}

// freshSchema makes a schema for this run and returns a URL whose search_path is it.
func freshSchema(ctx context.Context, base string) (string, func(), error) {
	schema := "bench_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL at -database-url: %w", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	drop := func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			_ = c.Close(context.Background())
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// commit names the code measured.
func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func machine() map[string]any {
	return map[string]any{"cpus": runtime.NumCPU(), "os": runtime.GOOS, "arch": runtime.GOARCH, "go": runtime.Version()}
}
