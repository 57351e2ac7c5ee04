// Package observe holds tiyin's Prometheus metrics: one registry, built once per process,
// that the HTTP edge, the workers and the gateway guard record into and /metrics serves.
package observe

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// Module provides the process's metrics, its failures' log and the audit checkpoints' sender.
var Module = fx.Module("observe", fx.Provide(New, fx.Annotate(NewOpsLog, fx.As(new(ports.OpsLog))),
	fx.Annotate(NewCheckpointSender, fx.As(new(ports.AuditCheckpointSender)))))

// Metrics are the collectors, each described in docs/operations.md ("Metrics").
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	jobs      *prometheus.CounterVec
	jobTime   *prometheus.HistogramVec
	gateway   *prometheus.HistogramVec
	webhooks  *prometheus.CounterVec
	rateLimit *prometheus.CounterVec
	unknown   *prometheus.GaugeVec
	breaks    *prometheus.GaugeVec
}

// latencyBuckets span 1 ms to 10 s: the API answers in milliseconds, gateways in up to their
// timeout.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// New registers every collector, the Go runtime's and the process's included.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tiyin_http_requests_total",
			Help: "API requests by endpoint (route), HTTP status and envelope code (0 = success)."},
			[]string{"endpoint", "status", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tiyin_http_request_duration_seconds",
			Help: "Time to answer an API request, by endpoint (route).", Buckets: latencyBuckets},
			[]string{"endpoint"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tiyin_jobs_total",
			Help: "Background jobs run, by kind and outcome (ok, snoozed, error)."},
			[]string{"kind", "outcome"}),
		jobTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tiyin_job_duration_seconds",
			Help: "Time one background job ran, by kind.", Buckets: latencyBuckets},
			[]string{"kind"}),
		gateway: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tiyin_gateway_call_duration_seconds",
			Help: "Time of one gateway call, by gateway, operation and outcome (ok, error, timeout).", Buckets: latencyBuckets},
			[]string{"gateway", "op", "outcome"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tiyin_webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome (delivered, failed = retried later, given_up = past 24 h)."},
			[]string{"outcome"}),
		rateLimit: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tiyin_rate_limited_total",
			Help: "Requests refused with code 7 by the per-partner rate limit, by partner name."},
			[]string{"partner"}),
		unknown: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tiyin_unknown_outcomes",
			Help: "Gateway calls whose outcome has been unknown for more than 10 minutes (tiyin keeps asking), by kind (application, transfer, card_order)."},
			[]string{"kind"}),
		breaks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tiyin_reconciliation_open_breaks",
			Help: "Reconciliation breaks not yet worked, by age since found (1d, 7d, 30d, older): alert on any older than a day (docs/reconciliation.md)."},
			[]string{"age"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.jobs, m.jobTime, m.gateway, m.webhooks, m.rateLimit, m.unknown, m.breaks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request records one API request.
func (m *Metrics) Request(endpoint string, status, code int, took time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(endpoint, strconv.Itoa(status), strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(endpoint).Observe(took.Seconds())
}

// Job records one run of a background job.
func (m *Metrics) Job(kind, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(kind, outcome).Inc()
	m.jobTime.WithLabelValues(kind).Observe(took.Seconds())
}

// GatewayCall records one call to a gateway.
func (m *Metrics) GatewayCall(gateway, op, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.gateway.WithLabelValues(gateway, op, outcome).Observe(took.Seconds())
}

// Webhooks records the outcome of one delivery run.
func (m *Metrics) Webhooks(delivered, failed, givenUp int) {
	if m == nil {
		return
	}
	m.webhooks.WithLabelValues("delivered").Add(float64(delivered))
	m.webhooks.WithLabelValues("failed").Add(float64(failed))
	m.webhooks.WithLabelValues("given_up").Add(float64(givenUp))
}

// RateLimited records a request refused by the rate limit.
func (m *Metrics) RateLimited(partner string) {
	if m == nil {
		return
	}
	m.rateLimit.WithLabelValues(partner).Inc()
}

// UnknownOutcomes sets the gauge of gateway calls unanswered for more than 10 minutes.
func (m *Metrics) UnknownOutcomes(applications, transfers, cardOrders int) {
	if m == nil {
		return
	}
	m.unknown.WithLabelValues("application").Set(float64(applications))
	m.unknown.WithLabelValues("transfer").Set(float64(transfers))
	m.unknown.WithLabelValues("card_order").Set(float64(cardOrders))
}

// OpenBreaks sets the gauge of open reconciliation breaks by age: within a day, 1–7 days,
// 7–30 days, longer (ports.BreakAges' order).
func (m *Metrics) OpenBreaks(ages [4]int) {
	if m == nil {
		return
	}
	for i, label := range [4]string{"1d", "7d", "30d", "older"} {
		m.breaks.WithLabelValues(label).Set(float64(ages[i]))
	}
}

// BuildInfo records the running build as tiyin_build_info{version,commit,goversion} 1.
func (m *Metrics) BuildInfo(version, commit, goVersion string) {
	if m == nil {
		return
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "tiyin_build_info",
		Help:        "The running build: always 1, its labels name the version, commit and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "commit": commit, "goversion": goVersion}})
	g.Set(1)
	_ = m.reg.Register(g) // registered once per process; a second call changes nothing
}
