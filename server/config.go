package server

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// envHelp lists every variable for serve --help; a test keeps it and docs/configuration.md
// naming the same ones.

// config is the settings (settings.go) read and checked: what the server and the commands run
// on (docs/configuration.md).
type config struct {
	HTTPAddr    string
	AdminAddr   string
	AdminPublic bool
	AdminHosts  []string
	Pprof       bool
	DatabaseURL string
	SQLitePath  string
	Sandbox     bool
	// Migrate applies the schema at start (TIYIN_MIGRATE, true by default); else the schema is
	// checked.
	Migrate          bool
	SandboxAPIKey    string
	SandboxCallDelay time.Duration
	ApplicationTTL   time.Duration
	ContractDelay    time.Duration
	IdempotencyTTL   time.Duration
	Product          application.Product
	DBMaxConns       int
	Workers          int
	LogLevel         string
	OTPTTL           time.Duration
	SandboxOTP       string
	// AttachCodeCaps are attach's daily caps on SMS codes.
	AttachCodeCaps domain.AttachCodeCaps
	// Books are the close's rules and Chart the general ledger mapping (TIYIN_NONACCRUAL_DAYS,
	// TIYIN_BOOKS_FILE).
	Books domain.BooksRules
	Chart domain.Chart
	// SandboxScoringPercent is the percent the sandbox's pre-scoring offers.
	SandboxScoringPercent domain.Percent
	DataKey               []byte
	RetiredDataKeys       [][]byte
	RateLimit             int
	GatewayTimeout        time.Duration
	SandboxFaults         sandbox.Faults
	// Gateways is each gateway port's adapter: TIYIN_<PORT>_URL and _TOKEN (docs/gateways.md).
	Gateways []gateway
	// AuditCheckpointURL and AuditCheckpointToken: where audit checkpoints are POSTed besides
	// the log, and with what bearer token.
	AuditCheckpointURL, AuditCheckpointToken string
	// Collections cuts the collections queues and times the reminders; CollectionsEvery is how
	// often its background pass runs.
	Collections      application.CollectionsConfig
	CollectionsEvery time.Duration
}

// collections reads the collections settings into c.
func (c *config) collections(st settings) []error {
	var errs []error
	bs, err := domain.ParseBuckets(st.CollectionsBuckets)
	if err != nil {
		errs = append(errs, fmt.Errorf("TIYIN_COLLECTIONS_BUCKETS=%q: %w", st.CollectionsBuckets, err))
	}
	p := domain.ReminderPolicy{DaysBefore: st.ReminderDaysBefore, Buckets: bs, PerWeek: st.RemindersPerWeek}
	from, to, ok := strings.Cut(st.ReminderHours, "-")
	if _, err := fmt.Sscanf(from+" "+to, "%d %d", &p.From, &p.To); err != nil || !ok || p.Validate() != nil {
		errs = append(errs, fmt.Errorf("TIYIN_REMINDER_HOURS=%q, TIYIN_REMINDERS_PER_WEEK=%d, TIYIN_REMINDER_DAYS_BEFORE=%d: want hours such as 9-20 (from before to, 0 to 24) and whole numbers ≥ 0",
			st.ReminderHours, st.RemindersPerWeek, st.ReminderDaysBefore))
	}
	if st.CollectionsEvery < time.Second {
		errs = append(errs, fmt.Errorf("TIYIN_COLLECTIONS_EVERY=%s: want 1s at least", st.CollectionsEvery))
	}
	c.Collections = application.CollectionsConfig{Buckets: bs, Reminders: p}
	return errs
}

// sandboxDataKey keys hashes in the sandbox when TIYIN_DATA_KEY is not set. It is public, so
// it is refused outside the sandbox.
var sandboxDataKey = []byte("tiyin-sandbox-data-key-not-secret")

// loadConfig reads the settings (readSettings) and checks each; every problem is reported at
// once, naming its variable.
func loadConfig() (config, error) {
	st, errs := readSettings()
	c := config{
		HTTPAddr: st.HTTPAddr, AdminAddr: st.AdminAddr, DatabaseURL: st.DatabaseURL, SQLitePath: st.SQLitePath,
		SandboxAPIKey: st.SandboxAPIKey, SandboxCallDelay: st.SandboxCallDelay, ApplicationTTL: st.ApplicationTTL,
		ContractDelay: st.ContractDelay, IdempotencyTTL: st.IdempotencyTTL, DBMaxConns: st.DBMaxConns, Workers: st.Workers,
		LogLevel: st.LogLevel, RateLimit: st.RateLimit, GatewayTimeout: st.GatewayTimeout, OTPTTL: st.OTPTTL,
		AdminPublic: st.AdminPublic, Pprof: st.Pprof, AdminHosts: adminHosts(st.AdminHosts),
		AttachCodeCaps: domain.AttachCodeCaps{PerCard: st.AttachCodesPerCard, PerPhone: st.AttachCodesPerPhone, PerPartner: st.AttachCodesPerPartner},
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"TIYIN_SANDBOX_CALL_DELAY", c.SandboxCallDelay}, {"TIYIN_APPLICATION_TTL", c.ApplicationTTL},
		{"TIYIN_LOAN_CONTRACT_DELAY", c.ContractDelay}, {"TIYIN_IDEMPOTENCY_TTL", c.IdempotencyTTL}, {"TIYIN_OTP_TTL", c.OTPTTL},
		{"TIYIN_GATEWAY_TIMEOUT", c.GatewayTimeout}} {
		if d.d < 0 {
			errs = append(errs, fmt.Errorf("%s=%s: want a duration such as 30m or 72h, not below zero", d.name, d.d))
		}
	}
	for _, n := range []struct {
		name   string
		n, min int
	}{{"TIYIN_DB_MAX_CONNS", c.DBMaxConns, 0}, {"TIYIN_WORKERS", c.Workers, 0}, {"TIYIN_RATE_LIMIT", c.RateLimit, 0},
		{"TIYIN_ATTACH_CODES_PER_CARD", st.AttachCodesPerCard, 1}, {"TIYIN_ATTACH_CODES_PER_PHONE", st.AttachCodesPerPhone, 1},
		{"TIYIN_ATTACH_CODES_PER_PARTNER", st.AttachCodesPerPartner, 1}} {
		if n.n < n.min {
			errs = append(errs, fmt.Errorf("%s=%d: want a whole number ≥ %d", n.name, n.n, n.min))
		}
	}
	c.CollectionsEvery = st.CollectionsEvery
	if err := c.collections(st); err != nil {
		errs = append(errs, err...)
	}
	if c.GatewayTimeout < 100*time.Millisecond {
		errs = append(errs, errors.New("TIYIN_GATEWAY_TIMEOUT must be at least 100ms"))
	}
	if v := st.SandboxFaults; v != "" {
		f, err := sandbox.ParseFaults(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_SANDBOX_FAULTS=%q: %w", v, err))
		}
		c.SandboxFaults = f
	}
	pct := func(name, v string) domain.Percent {
		p, err := domain.ParsePercent(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want a percent from 0 to 99.99 with at most two decimals", name, v))
		}
		return p
	}
	scheduleType, err := domain.ParseScheduleType(st.ScheduleType)
	if err != nil {
		errs = append(errs, fmt.Errorf("TIYIN_SCHEDULE_TYPE=%q: want ANNUITY or DIFFERENTIATED", st.ScheduleType))
	}
	c.SandboxScoringPercent = pct("TIYIN_SANDBOX_SCORING_PERCENT", st.SandboxScoringPercent)
	c.Product = application.Product{ScheduleType: scheduleType, ServiceRate: pct("TIYIN_SERVICE_PERCENT", st.ServicePercent),
		PenaltyDaily: pct("TIYIN_PENALTY_DAILY_PERCENT", st.PenaltyDailyPercent)}
	if err := checkAdminAddr(c.AdminAddr, c.AdminPublic); err != nil {
		errs = append(errs, err)
	}
	c.Sandbox = c.DatabaseURL == ""
	if st.Sandbox != nil {
		c.Sandbox = *st.Sandbox
	}
	c.Migrate = st.Migrate
	if c.SandboxOTP = st.SandboxOTP; c.SandboxOTP != "" {
		if _, err := domain.ParseOTP(c.SandboxOTP); err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_SANDBOX_OTP: %w", err))
		}
	}
	switch key := st.DataKey; {
	case key != "":
		b, err := hex.DecodeString(key)
		if err != nil || len(b) != 32 {
			errs = append(errs, errors.New("TIYIN_DATA_KEY must be 64 hex digits (32 random bytes, e.g. openssl rand -hex 32)"))
		}
		c.DataKey = b
	case c.Sandbox:
		c.DataKey = sandboxDataKey
	}
	if v := st.DataKeyRetired; v != "" {
		for i, k := range strings.Split(v, ",") {
			b, err := hex.DecodeString(strings.TrimSpace(k))
			if err != nil || len(b) != 32 {
				errs = append(errs, fmt.Errorf("TIYIN_DATA_KEY_RETIRED: key %d is not 64 hex digits", i+1))
				continue
			}
			c.RetiredDataKeys = append(c.RetiredDataKeys, b)
		}
	}
	if c.Books, c.Chart, err = loadBooks(st.BooksFile, st.NonAccrualDays); err != nil {
		errs = append(errs, err)
	}
	gs, gErrs := loadGateways(st)
	c.Gateways, errs = gs, append(errs, gErrs...)
	c.AuditCheckpointURL, c.AuditCheckpointToken = st.AuditCheckpointURL, st.AuditCheckpointToken
	if err := checkCheckpointURL(c.AuditCheckpointURL, c.Sandbox); err != nil {
		errs = append(errs, err)
	}
	if !c.Sandbox {
		c.SandboxOTP = ""
		c.SandboxFaults = sandbox.Faults{}
	}
	if c.IdempotencyTTL < 24*time.Hour {
		errs = append(errs, errors.New("TIYIN_IDEMPOTENCY_TTL must be at least 24h: partners may retry a request for a day"))
	}
	if c.SandboxAPIKey != "" && len(strings.TrimSpace(c.SandboxAPIKey)) < 16 {
		errs = append(errs, errors.New("TIYIN_SANDBOX_API_KEY must be at least 16 characters"))
	}
	return c, errors.Join(errs...)
}

// checkCheckpointURL refuses a checkpoint URL that is not http(s) without credentials (the
// token goes in TIYIN_AUDIT_CHECKPOINT_TOKEN) and, outside the sandbox, one that is not https:
// a head sent in the clear could be changed on its way.
func checkCheckpointURL(raw string, sandbox bool) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil:
		return errors.New("TIYIN_AUDIT_CHECKPOINT_URL: want an http(s) URL without credentials (the token goes in TIYIN_AUDIT_CHECKPOINT_TOKEN)")
	case !sandbox && u.Scheme != "https":
		return errors.New("TIYIN_SANDBOX=false and TIYIN_AUDIT_CHECKPOINT_URL not https: checkpoints leave over TLS only")
	}
	return nil
}

// errNoDataKey: the data key seals personal data and secrets at rest; outside the sandbox there
// is no default.
var errNoDataKey = errors.New("TIYIN_DATA_KEY is required outside the sandbox: 64 hex digits (openssl rand -hex 32)")

// keyring is the sealer over the data keys: nil without TIYIN_DATA_KEY.
func (c config) keyring() *keyring.Keyring {
	if len(c.DataKey) == 0 {
		return nil
	}
	k, err := keyring.New(c.DataKey, c.RetiredDataKeys...)
	if err != nil {
		panic(err) // the keys are 32 bytes each: loadConfig checked them
	}
	return k
}

// configure is loadConfig with the ports a bank's own main gave Go adapters (WithScoring and
// the like): serve and the one-shot commands build the same gateways.
func configure(o options) (config, error) {
	cfg, err := loadConfig()
	if err != nil {
		return config{}, err
	}
	if cfg.Gateways, err = withGoAdapters(cfg.Gateways, o.gateways); err != nil {
		return config{}, err
	}
	return cfg, nil
}
