package server

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// envHelp lists every variable for serve --help; a test keeps it and docs/configuration.md
// naming the same ones.
const envHelp = `  TIYIN_HTTP_ADDR              listen address (:8080)
  TIYIN_ADMIN_ADDR             admin listener for /metrics (127.0.0.1:9090; off: none)
  TIYIN_ADMIN_PUBLIC           allow the admin listener beyond loopback (false)
  TIYIN_ADMIN_HOSTS            host names the console answers to (localhost and loopback addresses)
  TIYIN_PPROF                  Go's profiler on the admin listener (false)
  TIYIN_DATABASE_URL           PostgreSQL URL; empty: SQLite
  TIYIN_SQLITE_PATH            SQLite file when no database URL (tiyin.db)
  TIYIN_DB_MAX_CONNS           PostgreSQL pool size per process (20)
  TIYIN_SANDBOX                sandbox gateways and /sandbox/* (true without a database URL)
  TIYIN_MIGRATE                apply the schema at start, as serve --migrate (true in the sandbox)
  TIYIN_SANDBOX_API_KEY        the sandbox partner's key (random, printed at start)
  TIYIN_SANDBOX_CALL_DELAY     sandbox: complete phone calls this long after verify (unset)
  TIYIN_SANDBOX_OTP            sandbox: every SMS code is this value (random codes)
  TIYIN_SANDBOX_SCORING_PERCENT sandbox: the percent pre-scoring offers (28.0); try offers at the 50 % cap
  TIYIN_SANDBOX_FAULTS         sandbox: gateway faults, e.g. error=0.2,timeout=0.05,latency=150ms
  TIYIN_DATA_KEY               64 hex digits sealing personal data (required outside the sandbox)
  TIYIN_DATA_KEY_RETIRED       earlier data keys, comma-separated
  TIYIN_APPLICATION_TTL        a PENDING application expires after (72h)
  TIYIN_IDEMPOTENCY_TTL        answers kept for replay (24h, at least)
  TIYIN_LOAN_CONTRACT_DELAY    issuance to contract number (30m)
  TIYIN_SCHEDULE_TYPE          ANNUITY or DIFFERENTIATED, for new loans (ANNUITY)
  TIYIN_SERVICE_PERCENT        annual service percent, for new loans (0)
  TIYIN_PENALTY_DAILY_PERCENT  daily penalty on overdue principal, for new loans (0.05)
  TIYIN_OTP_TTL                life of an attach SMS code (3m)
  TIYIN_WORKERS                background jobs at once per process (10)
  TIYIN_RATE_LIMIT             requests a second per partner; 0: off (1000)
  TIYIN_GATEWAY_TIMEOUT        longest wait for a gateway call (5s)
  TIYIN_LOG_LEVEL              debug, info, warn or error (info)
  TIYIN_SCORING_URL, TIYIN_CORE_BANKING_URL, TIYIN_PROCESSING_URL, TIYIN_SMS_URL,
  TIYIN_CARD_ISSUER_URL        each gateway's base URL (empty: the sandbox's)
  TIYIN_SCORING_TOKEN, TIYIN_CORE_BANKING_TOKEN, TIYIN_PROCESSING_TOKEN, TIYIN_SMS_TOKEN,
  TIYIN_CARD_ISSUER_TOKEN      each gateway's bearer token

Every secret (the database URL, the data keys, the sandbox key, the tokens) also reads the file
<NAME>_FILE names (a container's secret file).
`

// config is every TIYIN_* variable (docs/configuration.md). The names are fixed: outside
// test suites drive the binary through them.
type config struct {
	HTTPAddr    string
	AdminAddr   string
	AdminPublic bool
	AdminHosts  []string
	Pprof       bool
	DatabaseURL string
	SQLitePath  string
	Sandbox     bool
	// Migrate applies the schema at start (TIYIN_MIGRATE; the sandbox's default); else the
	// schema is checked.
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
	// SandboxScoringPercent is the percent the sandbox's pre-scoring offers.
	SandboxScoringPercent domain.Percent
	DataKey               []byte
	RetiredDataKeys       [][]byte
	RateLimit             int
	GatewayTimeout        time.Duration
	SandboxFaults         sandbox.Faults
	// Gateways is each gateway port's adapter: TIYIN_<PORT>_URL and _TOKEN (docs/gateways.md).
	Gateways []gateway
}

// secretSettings are the settings that also read a file named by <NAME>_FILE (a container's
// secret, a file only root can read), so the secret need not be in the environment.
var secretSettings = map[string]bool{
	"TIYIN_DATABASE_URL": true, "TIYIN_DATA_KEY": true, "TIYIN_DATA_KEY_RETIRED": true, "TIYIN_SANDBOX_API_KEY": true,
	"TIYIN_SCORING_TOKEN": true, "TIYIN_CORE_BANKING_TOKEN": true, "TIYIN_PROCESSING_TOKEN": true, "TIYIN_SMS_TOKEN": true,
	"TIYIN_CARD_ISSUER_TOKEN": true,
}

// secretOrEnv is the setting's value: the variable, or for a secret setting the content of the
// file <NAME>_FILE names (without its trailing newline). Both at once is an error, as is a
// file that cannot be read; the error names the file, never its content.
func secretOrEnv(name string) (string, error) {
	v := os.Getenv(name)
	path := os.Getenv(name + "_FILE")
	if !secretSettings[name] || path == "" {
		return v, nil
	}
	if v != "" {
		return "", fmt.Errorf("%s and %s_FILE are both set: give one", name, name)
	}
	b, err := os.ReadFile(path) //nolint:gosec // the operator names the file, as the variable itself would be
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// sandboxDataKey keys hashes in the sandbox when TIYIN_DATA_KEY is not set. It is public, so
// it is refused outside the sandbox.
var sandboxDataKey = []byte("tiyin-sandbox-data-key-not-secret")

// loadConfig reads the environment; every problem is reported at once.
func loadConfig() (config, error) {
	var errs []error
	str := func(name, def string) string {
		v, err := secretOrEnv(name)
		if err != nil {
			errs = append(errs, err)
		}
		if v != "" {
			return v
		}
		return def
	}
	dur := func(name string, def time.Duration) time.Duration {
		v := str(name, "")
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 30m or 72h", name, v))
			return def
		}
		return d
	}
	num := func(name string, def int) int {
		v := str(name, "")
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a whole number ≥ 0", name, v))
			return def
		}
		return n
	}
	c := config{
		HTTPAddr:         str("TIYIN_HTTP_ADDR", ":8080"),
		AdminAddr:        str("TIYIN_ADMIN_ADDR", "127.0.0.1:9090"),
		DatabaseURL:      str("TIYIN_DATABASE_URL", ""),
		SQLitePath:       str("TIYIN_SQLITE_PATH", "tiyin.db"),
		SandboxAPIKey:    str("TIYIN_SANDBOX_API_KEY", ""),
		SandboxCallDelay: dur("TIYIN_SANDBOX_CALL_DELAY", 0),
		ApplicationTTL:   dur("TIYIN_APPLICATION_TTL", 72*time.Hour),
		ContractDelay:    dur("TIYIN_LOAN_CONTRACT_DELAY", 30*time.Minute),
		IdempotencyTTL:   dur("TIYIN_IDEMPOTENCY_TTL", 24*time.Hour),
		DBMaxConns:       num("TIYIN_DB_MAX_CONNS", 20),
		Workers:          num("TIYIN_WORKERS", 10),
		LogLevel:         str("TIYIN_LOG_LEVEL", "info"),
		RateLimit:        num("TIYIN_RATE_LIMIT", 1000),
		GatewayTimeout:   dur("TIYIN_GATEWAY_TIMEOUT", guard.DefaultTimeout),
	}
	if c.GatewayTimeout < 100*time.Millisecond {
		errs = append(errs, errors.New("TIYIN_GATEWAY_TIMEOUT must be at least 100ms"))
	}
	if v := str("TIYIN_SANDBOX_FAULTS", ""); v != "" {
		f, err := sandbox.ParseFaults(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_SANDBOX_FAULTS=%q: %w", v, err))
		}
		c.SandboxFaults = f
	}
	pct := func(name, def string) domain.Percent {
		v := str(name, def)
		p, err := domain.ParsePercent(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want a percent from 0 to 99.99 with at most two decimals", name, v))
		}
		return p
	}
	st, err := domain.ParseScheduleType(str("TIYIN_SCHEDULE_TYPE", "ANNUITY"))
	if err != nil {
		errs = append(errs, fmt.Errorf("TIYIN_SCHEDULE_TYPE=%q: want ANNUITY or DIFFERENTIATED", str("TIYIN_SCHEDULE_TYPE", "")))
	}
	c.SandboxScoringPercent = pct("TIYIN_SANDBOX_SCORING_PERCENT", "28.0")
	c.Product = application.Product{ScheduleType: st, ServiceRate: pct("TIYIN_SERVICE_PERCENT", "0"),
		PenaltyDaily: pct("TIYIN_PENALTY_DAILY_PERCENT", "0.05")}
	flag := func(name string) bool {
		v := str(name, "false")
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
		}
		return b
	}
	c.AdminPublic, c.Pprof = flag("TIYIN_ADMIN_PUBLIC"), flag("TIYIN_PPROF")
	c.AdminHosts = adminHosts(str("TIYIN_ADMIN_HOSTS", ""))
	if err := checkAdminAddr(c.AdminAddr, c.AdminPublic); err != nil {
		errs = append(errs, err)
	}
	c.Sandbox = c.DatabaseURL == ""
	if v := str("TIYIN_SANDBOX", ""); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_SANDBOX=%q: want true or false", v))
		}
		c.Sandbox = b
	}
	c.Migrate = c.Sandbox
	if v := str("TIYIN_MIGRATE", ""); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_MIGRATE=%q: want true or false", v))
		}
		c.Migrate = b
	}
	c.OTPTTL = dur("TIYIN_OTP_TTL", domain.DefaultOTPTTL)
	if c.SandboxOTP = str("TIYIN_SANDBOX_OTP", ""); c.SandboxOTP != "" {
		if _, err := domain.ParseOTP(c.SandboxOTP); err != nil {
			errs = append(errs, fmt.Errorf("TIYIN_SANDBOX_OTP: %w", err))
		}
	}
	switch key := str("TIYIN_DATA_KEY", ""); {
	case key != "":
		b, err := hex.DecodeString(key)
		if err != nil || len(b) != 32 {
			errs = append(errs, errors.New("TIYIN_DATA_KEY must be 64 hex digits (32 random bytes, e.g. openssl rand -hex 32)"))
		}
		c.DataKey = b
	case c.Sandbox:
		c.DataKey = sandboxDataKey
	}
	if v := str("TIYIN_DATA_KEY_RETIRED", ""); v != "" {
		for i, k := range strings.Split(v, ",") {
			b, err := hex.DecodeString(strings.TrimSpace(k))
			if err != nil || len(b) != 32 {
				errs = append(errs, fmt.Errorf("TIYIN_DATA_KEY_RETIRED: key %d is not 64 hex digits", i+1))
				continue
			}
			c.RetiredDataKeys = append(c.RetiredDataKeys, b)
		}
	}
	gs, gErrs := loadGateways(str)
	c.Gateways, errs = gs, append(errs, gErrs...)
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
