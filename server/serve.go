package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	httpadapter "github.com/tiyin/tiyin/adapters/http"
	"github.com/tiyin/tiyin/adapters/jobs"
	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/webhook"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// shutdownTimeout bounds the drain of in-flight requests and jobs on SIGTERM.
const shutdownTimeout = 20 * time.Second

func serve(cfg config, o options) error {
	if len(cfg.DataKey) == 0 {
		return errNoDataKey
	}
	if !cfg.Sandbox {
		if err := missingGateways(cfg.Gateways); err != nil {
			return err
		}
	}
	log, err := newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	tuneGC()
	lns, err := listen(cfg)
	if err != nil {
		return err
	}
	app := fx.New(graph(cfg, log, o), fx.Supply(lns), fx.Invoke(run, startAdmin), fx.Options(o.fx...))
	// The signal is caught before the start: a SIGTERM while tiyin starts (the listener may
	// already answer) waits for the start, then shuts down as any other, instead of killing
	// the process mid-way.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	startCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		lns.close()
		return rootCause(err)
	}
	<-sig
	log.Info("shutting down: draining requests and jobs")
	stopCtx, cancelStop := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancelStop()
	return app.Stop(stopCtx)
}

// listeners are serve's bound sockets: the partner API's and the admin listener's (nil when
// TIYIN_ADMIN_ADDR is off).
type listeners struct {
	api, admin net.Listener
}

// listen binds every listener serve needs before anything else starts: a taken port stops
// tiyin with one line naming the variable that moves it, before the banner, the workers or
// the database (a failed start hook would otherwise roll back workers already running, and
// their errors would bury the cause).
func listen(cfg config) (listeners, error) {
	api, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return listeners{}, listenError("TIYIN_HTTP_ADDR", cfg.HTTPAddr, err)
	}
	lns := listeners{api: api}
	if cfg.AdminAddr != adminOff {
		if lns.admin, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			_ = api.Close()
			return listeners{}, listenError("TIYIN_ADMIN_ADDR", cfg.AdminAddr, err)
		}
	}
	return lns, nil
}

// listenError names the address that could not be bound and the variable that changes it.
func listenError(variable, addr string, err error) error {
	return fmt.Errorf("listen on %s %s: %w (set %s to a free host:port)", variable, addr, err, variable)
}

// close releases the listeners of a start that failed.
func (l listeners) close() {
	_ = l.api.Close()
	if l.admin != nil {
		_ = l.admin.Close()
	}
}

// systemClock is the real time, every partner's: the clock graph provides outside the sandbox.
type systemClock struct{}

func (systemClock) Now(uuid.UUID) time.Time { return time.Now() }

func (systemClock) Ahead() []uuid.UUID { return nil }

// graph is tiyin as fx providers: the database, the clock, the gateways, the use cases, the
// job queue and its workers, the HTTP edge. fx builds only what is asked for: serve asks for
// the listener and the workers (run), a one-shot command only for the use cases and the
// database (openDB), so the CLI runs the server's own graph without its listener; a test asks
// for what it tests (Build). The doubles o swaps in (Swap) replace what the graph provides.
func graph(cfg config, log *zap.Logger, o options) fx.Option {
	clock := fx.Options(fx.Provide(func() ports.Clock { return systemClock{} }))
	if cfg.Sandbox {
		clock = store.SandboxClockModule
	}
	// Without a data key (a command that needs none, such as migrate) the sealer is nil, not
	// a nil *Keyring in an interface.
	var sealer ports.Sealer
	if k := cfg.keyring(); k != nil {
		sealer = k
	}
	return fx.Options(
		fx.WithLogger(func() fxevent.Logger { return fxevent.NopLogger }),
		fx.Supply(cfg, log),
		fx.Provide(
			func() ports.Sealer { return sealer },
			func(c config, s ports.Sealer) store.Config {
				return store.Config{DatabaseURL: c.DatabaseURL, SQLitePath: c.SQLitePath, MaxConns: int32(c.DBMaxConns), RequireUnitOfWork: true,
					EventBody: webhook.Body, Sealer: s}
			},
			func(c config) application.Config {
				return application.Config{ApplicationTTL: c.ApplicationTTL, SandboxCallDelay: c.SandboxCallDelay, Product: c.Product,
					LoanContractDelay: c.ContractDelay, OTPTTL: c.OTPTTL, SandboxOTP: c.SandboxOTP,
					AttachCodeCaps: c.AttachCodeCaps, Books: c.Books, Chart: c.Chart, Collections: c.Collections}
			},
			func(c config) jobs.Config {
				return jobs.Config{Workers: c.Workers, ReconcileEvery: time.Second, PollInterval: 200 * time.Millisecond, IdempotencyTTL: c.IdempotencyTTL,
					CollectionsEvery: c.CollectionsEvery}
			},
			func(c config) webhook.Config { return webhook.Config{Sandbox: c.Sandbox} },
			func(c config) observe.CheckpointConfig {
				return observe.CheckpointConfig{URL: c.AuditCheckpointURL, Token: c.AuditCheckpointToken, Timeout: c.GatewayTimeout}
			},
			func(c config) httpadapter.Config {
				return httpadapter.Config{Sandbox: c.Sandbox, RateLimit: c.RateLimit}
			},
			func(c config) sandbox.Faults { return c.SandboxFaults }, // the sandbox network's journal faults
			func(c config) guard.Config {
				g := guard.Config{Timeout: c.GatewayTimeout}
				if c.SandboxFaults.Active() {
					g.Faults = c.SandboxFaults
				}
				return g
			},
			readiness,
			jobDatabase,
		),
		observe.Module, store.Module, clock, gatewaysModule(cfg.Gateways, cfg.SandboxScoringPercent), guard.Module, webhook.Module, appModule, jobs.Module,
		httpadapter.Module, fx.Options(o.swaps...),
	)
}

// rootCause is the error a provider or a start hook returned, without fx's account of the
// graph around it: an operator reads "listen on :8080: address already in use", not which
// constructor needed which.
func rootCause(err error) error {
	return dig.RootCause(err)
}

// readiness is /readyz: the database answers, the schema is applied, the sandbox partner exists.
func readiness(db *store.DB, partners ports.PartnerRepository, cfg config) httpadapter.ReadyFunc {
	return func(ctx context.Context) error {
		if err := db.Ready(ctx); err != nil {
			return err
		}
		if cfg.Sandbox {
			if _, err := partners.ByName(ctx, domain.SandboxPartnerName); err != nil {
				return fmt.Errorf("sandbox partner not seeded: %w", err)
			}
		}
		return nil
	}
}

type runDeps struct {
	fx.In
	LC      fx.Lifecycle
	Cfg     config
	Log     *zap.Logger
	DB      *store.DB
	App     *application.App
	Runner  *jobs.Runner
	Server  *httpadapter.Server
	Metrics *observe.Metrics
	Clock   *store.SandboxClock `optional:"true"`
	Ln      listeners
}

// run starts everything in order (schema, sandbox partner, clock, workers, listener) and
// stops it in reverse: the listener drains requests, then the workers finish their jobs.
func run(d runDeps) {
	srv := &http.Server{
		Handler:           d.Server.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          zap.NewStdLog(d.Log.Named("http")),
	}
	clockCtx, stopClock := context.WithCancel(context.Background())
	d.LC.Append(fx.Hook{
		OnStart: func(ctx context.Context) (err error) {
			ln := d.Ln.api
			defer func() {
				if err != nil {
					stopClock()
				}
			}()
			if err := prepareSchema(ctx, d.DB, d.Cfg.Migrate, false); err != nil {
				return err
			}
			var key string
			if d.Cfg.Sandbox {
				key, err = d.App.Partners.EnsurePartner.Handle(ctx, application.EnsurePartner{Name: domain.SandboxPartnerName, APIKey: d.Cfg.SandboxAPIKey})
				if errors.Is(err, application.ErrPartnerDisabled) {
					d.Log.Warn("the sandbox partner is disabled and stays so: `tiyin partner enable sandbox` enables it")
					key, err = "", nil
				}
				if err != nil {
					return fmt.Errorf("seed the sandbox partner: %w", err)
				}
			}
			if d.Clock != nil {
				if err := d.Clock.Refresh(ctx); err != nil {
					return err
				}
				go d.Clock.Run(clockCtx, time.Second)
			}
			if err := d.Runner.Start(context.WithoutCancel(ctx)); err != nil {
				return fmt.Errorf("start workers: %w", err)
			}
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					d.Log.Error("http server stopped", zap.Error(err))
				}
			}()
			b := build()
			d.Metrics.BuildInfo(b.Version, b.Commit, b.GoVersion)
			d.Log.Info("tiyin started", zap.String("addr", ln.Addr().String()), zap.String("database", describeDatabase(d.Cfg)),
				zap.String("version", b.Version), zap.String("commit", b.Commit), zap.String("go", b.GoVersion),
				zap.Bool("sandbox", d.Cfg.Sandbox), zap.Int("rate_limit", d.Cfg.RateLimit),
				zap.Duration("gateway_timeout", d.Cfg.GatewayTimeout))
			if d.Cfg.SandboxFaults.Active() {
				d.Log.Warn("sandbox gateway faults are on", zap.Stringer("faults", d.Cfg.SandboxFaults))
			}
			logGateways(d.Log, d.Cfg.Gateways)
			if d.Cfg.Sandbox {
				admin := ""
				if d.Ln.admin != nil {
					admin = d.Ln.admin.Addr().String()
				}
				printBanner(ln.Addr().String(), key, admin)
			}
			return nil
		},
		OnStop: func(ctx context.Context) error {
			stopClock()
			err := srv.Shutdown(ctx)
			return errors.Join(err, d.Runner.Stop(ctx))
		},
	})
}

// printBanner tells a newcomer where the sandbox is and how to call it, and where the console
// is (adminAddr, the admin listener's bound address; empty when it is off). The sandbox key is
// the only secret tiyin ever prints outside `partner create` and `rotate-key`.
func printBanner(addr, key, adminAddr string) {
	fmt.Printf(`
  tiyin sandbox is running on http://%[1]s
  API key of partner "sandbox": %[2]s

    export TIYIN_URL=http://%[1]s TIYIN_KEY=%[2]s

  Check the key (answers the sandbox clock):
    curl -s $TIYIN_URL/sandbox/clock/advance -H "Authorization: Bearer $TIYIN_KEY" \
      -H 'Content-Type: application/json' -d '{"id":"'$(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)'","params":{"duration":"0s"}}'

  Walk through a microloan: docs/integration.md. API document: http://%[1]s/openapi.yaml
`, browsable(addr), key)
	if adminAddr != "" {
		fmt.Printf("  Operator console: http://%s/console/ (an operator first: tiyin operator create NAME --role admin)\n", browsable(adminAddr))
	}
	fmt.Println()
}

// browsable is a bound address as a browser on this host reaches it: a listener on every
// interface (0.0.0.0, [::]) as localhost, which the admin listener's hosts allow by default.
func browsable(addr string) string {
	if strings.HasPrefix(addr, "[::]") || strings.HasPrefix(addr, "0.0.0.0") {
		return "localhost" + addr[strings.LastIndex(addr, ":"):]
	}
	return addr
}

func newLogger(level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("TIYIN_LOG_LEVEL=%q: want debug, info, warn or error", level)
	}
	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.EncoderConfig.TimeKey = "time"
	cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	cfg.Sampling = nil
	// An error's line names the error and the request; the stack of the logging call is the
	// same for every such line and says nothing more (a panic's line carries its own stack).
	cfg.DisableStacktrace = true
	// One write to stderr per access-log line was 7 % of a read request's CPU: lines are
	// gathered and written at most logFlushInterval later (at once when the buffer fills, and
	// on exit, where serve syncs the logger). A SIGKILL loses at most that interval of lines.
	out := &zapcore.BufferedWriteSyncer{WS: zapcore.Lock(os.Stderr), Size: 256 << 10, FlushInterval: logFlushInterval}
	enc := zapcore.NewJSONEncoder(cfg.EncoderConfig)
	return cfg.Build(zap.WrapCore(func(zapcore.Core) zapcore.Core { return zapcore.NewCore(enc, out, cfg.Level) }))
}

// tuneGC collects garbage at 200 % heap growth instead of Go's 100 %, unless GOGC says
// otherwise: tiyin's live heap is tens of megabytes, and collection was 8 % of a request's CPU.
// GOMEMLIMIT, when set, still bounds the heap.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}

// logFlushInterval bounds how long a log line waits in the logger's buffer.
const logFlushInterval = 100 * time.Millisecond
