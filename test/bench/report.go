package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

const (
	kindCeiling = "ceiling"
	kindRead    = "read"
	kindWrite   = "write"
	kindFlow    = "flow"
	// kindEndToEnd is work counted when its background part is done; no ceiling judges it.
	kindEndToEnd = "end to end"
)

// The targets: a read endpoint does at least readTarget × the raw select, a write endpoint
// writeTarget × the raw insert, and at half its saturation rate p99 stays within p99Target
// with no error.
const (
	readTarget  = 0.40
	writeTarget = 0.35
	p99Target   = 25 * time.Millisecond
)

// row is one scenario's figures.
type row struct {
	Scenario string  `json:"scenario"`
	Kind     string  `json:"kind"`
	Max      stats   `json:"saturation"`
	Half     *stats  `json:"halfRate,omitempty"`
	VsEcho   float64 `json:"vsEcho,omitempty"`
	Baseline string  `json:"baseline,omitempty"`
	Ratio    float64 `json:"ratio,omitempty"`
	Target   float64 `json:"target,omitempty"`
	Pass     *bool   `json:"pass,omitempty"`
	CPU      *cpuUse `json:"cpuPerOp,omitempty"`
}

// report is the whole run.
type report struct {
	Commit      string         `json:"commit"`
	At          time.Time      `json:"at"`
	Machine     map[string]any `json:"machine"`
	Database    string         `json:"database"`
	Concurrency int            `json:"concurrency"`
	Flows       int            `json:"flows"`
	Pool        int            `json:"pool"`
	Duration    string         `json:"duration"`
	Rows        []row          `json:"rows"`
	RSSAfter    int64          `json:"rssAfterTableBytes"`
	Memory      *memory        `json:"memory,omitempty"`
}

func newReport(cfg config) report {
	return report{Commit: commit(), At: time.Now().UTC(), Machine: machine(), Database: cfg.db, Concurrency: cfg.conc,
		Flows: cfg.flows, Pool: cfg.pool, Duration: cfg.dur.String()}
}

func (r *report) find(name string) *row {
	for i := range r.Rows {
		if strings.HasPrefix(r.Rows[i].Scenario, name) {
			return &r.Rows[i]
		}
	}
	return nil
}

// add judges a row against its baseline and keeps it.
func (r *report) add(x row) {
	if echo := r.find("bare echo"); echo != nil && x.Kind != kindFlow && x.Kind != kindCeiling {
		x.VsEcho = x.Max.Rate() / echo.Max.Rate()
	}
	var base *row
	switch x.Kind {
	case kindRead:
		base, x.Target = r.find("raw primary-key select"), readTarget
	case kindWrite:
		base, x.Target = r.find("raw single-row insert"), writeTarget
	}
	if base != nil {
		x.Baseline, x.Ratio = base.Scenario, x.Max.Rate()/base.Max.Rate()
		pass := x.Ratio >= x.Target && x.Max.Errors == 0 && x.Half != nil && x.Half.P99 <= p99Target && x.Half.Errors == 0
		x.Pass = &pass
	}
	r.Rows = append(r.Rows, x)
	fmt.Fprintf(os.Stderr, "bench: %-40s %8.0f/s  p99 %v\n", x.Scenario, x.Max.Rate(), x.Max.P99.Round(10*time.Microsecond))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// print writes the table.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\ntiyin %s on %s, %d cores; %d clients (%d flows), pool %d, %s per measurement\n\n",
		r.Commit, r.Database, r.Machine["cpus"], r.Concurrency, r.Flows, r.Pool, r.Duration)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\trate\tp50\tp99\terrors\tvs echo\tvs DB ceiling\ttarget\tp99 at ½ rate\terrors at ½\tverdict\tCPU µs/op tiyin+PG+load")
	for _, x := range r.Rows {
		unit := "req/s"
		switch x.Kind {
		case kindFlow:
			unit = "flows/s"
		case kindEndToEnd:
			unit = "apps/s"
		}
		vsEcho, ratio, target, half, halfErr, verdict := "", "", "", "", "", ""
		if x.VsEcho > 0 {
			vsEcho = fmt.Sprintf("%.2f", x.VsEcho)
		}
		if x.Baseline != "" {
			ratio = fmt.Sprintf("%.2f", x.Ratio)
			target = fmt.Sprintf("≥ %.2f", x.Target)
		}
		if x.Half != nil {
			half, halfErr = ms(x.Half.P99), fmt.Sprint(x.Half.Errors)
		}
		if x.Pass != nil {
			verdict = map[bool]string{true: "pass", false: "MISSED"}[*x.Pass]
		}
		cpu := ""
		if c := x.CPU; c != nil {
			us := func(d time.Duration) int64 { return d.Microseconds() }
			cpu = fmt.Sprintf("%d+%d+%d", us(c.Tiyin), us(c.Postgres), us(c.Load))
		}
		fmt.Fprintf(tw, "%s\t%.1f %s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.Scenario, x.Max.Rate(), unit, ms(x.Max.P50), ms(x.Max.P99),
			x.Max.Errors, vsEcho, ratio, target, half, halfErr, verdict, cpu)
	}
	_ = tw.Flush()
	if info, minimal := r.find("application info"), r.find(minimalName); info != nil && minimal != nil {
		verdict := "met"
		if ratio := info.Max.Rate() / minimal.Max.Rate(); ratio < minimalTarget {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "\napplication info against the minimal info handler: %.2f× the rate (target ≥ %.2f): %s\n",
			info.Max.Rate()/minimal.Max.Rate(), minimalTarget, verdict)
	}
	fmt.Fprintf(w, "\ntiyin's resident memory after the table: %.0f MB\n", float64(r.RSSAfter)/(1<<20))
}

// minimalTarget is what application info must reach of the minimal handler that checks the key
// and reads one row with one pgx query (issue 34).
const minimalTarget = 0.80

// write saves the report as JSON.
func (r *report) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// The limits of a build against the previous one, measured in the same run: no scenario's rate
// below minRateRatio of the base's, no p99 at half rate above maxP99Ratio of the base's.
const (
	minRateRatio = 0.8
	maxP99Ratio  = 1.25
)

// compare writes each scenario of head beside the same of base and reports whether head is
// within the limits on every one.
func compare(w io.Writer, base, head report) bool {
	fmt.Fprintf(w, "\nthis build (%s) against the base (%s), same run: rate ratio ≥ %.2f, p99 at ½ ratio ≤ %.2f\n"+
		"(both builds' p99 is read at one offered load: half the base's first saturation rate)\n\n",
		head.Commit, base.Commit, minRateRatio, maxP99Ratio)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\trate base\trate this\tratio\tp99 at ½ base\tp99 at ½ this\tratio\tverdict")
	ok := true
	for _, h := range head.Rows {
		b := base.find(h.Scenario)
		if b == nil || h.Kind == kindCeiling {
			continue
		}
		rate := h.Max.Rate() / b.Max.Rate()
		pass := rate >= minRateRatio
		p99b, p99h, p99r := "", "", ""
		if h.Half != nil && b.Half != nil && b.Half.P99 > 0 {
			r := float64(h.Half.P99) / float64(b.Half.P99)
			p99b, p99h, p99r = ms(b.Half.P99), ms(h.Half.P99), fmt.Sprintf("%.2f", r)
			pass = pass && r <= maxP99Ratio
		}
		ok = ok && pass
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.2f\t%s\t%s\t%s\t%s\n", h.Scenario, b.Max.Rate(), h.Max.Rate(), rate, p99b, p99h, p99r,
			map[bool]string{true: "pass", false: "SLOWER"}[pass])
	}
	_ = tw.Flush()
	return ok
}

// halfRates is half of each scenario's saturation rate, for the rows paced at half rate.
func (r report) halfRates() map[string]float64 {
	out := map[string]float64{}
	for _, row := range r.Rows {
		if row.Half != nil && row.Kind != kindCeiling {
			out[row.Scenario] = row.Max.Rate() / 2
		}
	}
	return out
}

// best is r with each scenario's row of the higher saturation rate, of r or o, and the lower
// p99 at half rate of the two.
func (r report) best(o report) report {
	out := r
	out.Rows = slices.Clone(r.Rows)
	for i, row := range out.Rows {
		other := o.find(row.Scenario)
		if other == nil {
			continue
		}
		if other.Max.Rate() > row.Max.Rate() {
			out.Rows[i] = *other
			out.Rows[i].Half = row.Half
		}
		if other.Half != nil && (row.Half == nil || other.Half.P99 < row.Half.P99) {
			out.Rows[i].Half = other.Half
		}
	}
	return out
}
