package server

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	envlib "github.com/caarlos0/env/v11"
)

// settings is every TIYIN_* setting as the environment gives it, in one struct: caarlos0/env
// reads it (the secret ones also from the file <NAME>_FILE names), and its tags are the one
// source of `serve --help` and of docs/configuration.md's table (help: what it does; envDefault:
// its default; doc: the default in words where it is no value; secret: it reads <NAME>_FILE).
// loadConfig then checks each value and builds the config. The names are fixed: outside test
// suites drive the binary through them.
type settings struct {
	HTTPAddr              string        `env:"TIYIN_HTTP_ADDR" envDefault:":8080" help:"listen address of the partner API"`
	DatabaseURL           string        `env:"TIYIN_DATABASE_URL" secret:"true" doc:"empty" help:"PostgreSQL URL; empty = embedded SQLite"`
	SQLitePath            string        `env:"TIYIN_SQLITE_PATH" envDefault:"tiyin.db" help:"SQLite file when no database URL"`
	Sandbox               *bool         `env:"TIYIN_SANDBOX" doc:"true without a database URL, else false" help:"sandbox gateways and the /sandbox/* endpoints"`
	Migrate               bool          `env:"TIYIN_MIGRATE" envDefault:"true" help:"serve and the commands that write apply the schema at start (docs/design-notes.md); false: they check it, and stop naming tiyin migrate when it is behind (a release runs tiyin migrate once; docs/operations.md)"`
	SandboxAPIKey         string        `env:"TIYIN_SANDBOX_API_KEY" secret:"true" doc:"random at the first start, then kept (sealed) and printed at each" help:"key of the seeded sandbox partner (16+ characters)"`
	SandboxCallDelay      time.Duration `env:"TIYIN_SANDBOX_CALL_DELAY" doc:"unset" help:"sandbox: complete required phone calls this long after verify"`
	ApplicationTTL        time.Duration `env:"TIYIN_APPLICATION_TTL" envDefault:"72h" help:"an application PENDING for longer expires"`
	IdempotencyTTL        time.Duration `env:"TIYIN_IDEMPOTENCY_TTL" envDefault:"24h" help:"how long answers are kept for replay (24 h at least)"`
	ContractDelay         time.Duration `env:"TIYIN_LOAN_CONTRACT_DELAY" envDefault:"30m" help:"issuance → contract number (loanId) from core banking"`
	ScheduleType          string        `env:"TIYIN_SCHEDULE_TYPE" envDefault:"ANNUITY" help:"ANNUITY (equal instalments) or DIFFERENTIATED (equal principal), for new loans"`
	ServicePercent        string        `env:"TIYIN_SERVICE_PERCENT" envDefault:"0" help:"annual service percent, accrued like interest, for new loans"`
	PenaltyDailyPercent   string        `env:"TIYIN_PENALTY_DAILY_PERCENT" envDefault:"0.05" help:"daily penalty on overdue principal, in percent, for new loans"`
	NonAccrualDays        int           `env:"TIYIN_NONACCRUAL_DAYS" envDefault:"90" help:"days overdue from which the close stops accruing a loan's charges on balance (accounting.md, Non-accrual)"`
	BooksFile             string        `env:"TIYIN_BOOKS_FILE" doc:"empty (the shipped example)" help:"YAML file with the provision table (or a preset: DEFAULT, IFRS9) and the general ledger mapping of every account kind, checked at start (accounting.md)"`
	DBMaxConns            int           `env:"TIYIN_DB_MAX_CONNS" envDefault:"20" help:"PostgreSQL pool size per process, shared by requests and background jobs (SQLite uses one connection); see performance.md, Pool sizes"`
	Workers               int           `env:"TIYIN_WORKERS" envDefault:"10" help:"background jobs run at once per process"`
	LogLevel              string        `env:"TIYIN_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error"`
	OTPTTL                time.Duration `env:"TIYIN_OTP_TTL" envDefault:"3m" help:"how long an attach SMS code lives"`
	AttachCodesPerCard    int           `env:"TIYIN_ATTACH_CODES_PER_CARD" envDefault:"5" help:"most attach SMS codes a card (PAN) is sent a Tashkent day, across partners; over it: code 7"`
	AttachCodesPerPhone   int           `env:"TIYIN_ATTACH_CODES_PER_PHONE" envDefault:"10" help:"most attach SMS codes a phone number is sent a Tashkent day, across partners; over it: code 7"`
	AttachCodesPerPartner int           `env:"TIYIN_ATTACH_CODES_PER_PARTNER" envDefault:"10000" help:"most attach SMS codes one partner's attaches send a Tashkent day; over it: code 7"`
	SandboxOTP            string        `env:"TIYIN_SANDBOX_OTP" doc:"empty (random codes)" help:"sandbox: every SMS code is this 6-digit value"`
	SandboxScoringPercent string        `env:"TIYIN_SANDBOX_SCORING_PERCENT" envDefault:"28.0" help:"sandbox: the percent pre-scoring offers; e.g. 83.06 to try offers at the 50 % cap"`
	DataKey               string        `env:"TIYIN_DATA_KEY" secret:"true" doc:"a fixed, public key in the sandbox; required otherwise" help:"64 hex digits (openssl rand -hex 32): seals clientData and webhook secrets (AES-256-GCM) and keys the hashes of SMS codes, card numbers and card PINFLs"`
	DataKeyRetired        string        `env:"TIYIN_DATA_KEY_RETIRED" secret:"true" doc:"empty" help:"earlier data keys, comma-separated, that still open and find what they sealed (operations.md, Rotating the data key)"`
	RateLimit             int           `env:"TIYIN_RATE_LIMIT" envDefault:"1000" help:"requests per second per partner (bursts of twice that), per process; 0 = off. Over it: code 7 (429) with Retry-After: 1"`
	GatewayTimeout        time.Duration `env:"TIYIN_GATEWAY_TIMEOUT" envDefault:"5s" help:"longest wait for any one gateway call (100ms at least); one that runs out is an unknown outcome"`
	SandboxFaults         string        `env:"TIYIN_SANDBOX_FAULTS" doc:"empty" help:"sandbox: gateway faults, e.g. error=0.2,timeout=0.05,latency=150ms, and the network journal's lost-credit, double-credit, amount-drift, reversed-debit rates"`
	ScoringURL            string        `env:"TIYIN_SCORING_URL" doc:"empty (the sandbox's)" help:"base URL of the bank's scoring behind the gateway protocol (gateways.md)"`
	ScoringToken          string        `env:"TIYIN_SCORING_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to the scoring; never logged"`
	CoreBankingURL        string        `env:"TIYIN_CORE_BANKING_URL" doc:"empty (the sandbox's)" help:"base URL of the bank's core banking"`
	CoreBankingToken      string        `env:"TIYIN_CORE_BANKING_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to core banking"`
	ProcessingURL         string        `env:"TIYIN_PROCESSING_URL" doc:"empty (the sandbox's)" help:"base URL of the UZCARD/HUMO processing"`
	ProcessingToken       string        `env:"TIYIN_PROCESSING_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to the processing"`
	SMSURL                string        `env:"TIYIN_SMS_URL" doc:"empty (the sandbox's)" help:"base URL of the SMS gateway"`
	SMSToken              string        `env:"TIYIN_SMS_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to the SMS gateway"`
	CardIssuerURL         string        `env:"TIYIN_CARD_ISSUER_URL" doc:"empty (the sandbox's)" help:"base URL of the card issuer"`
	CardIssuerToken       string        `env:"TIYIN_CARD_ISSUER_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to the card issuer"`
	GeneralLedgerURL      string        `env:"TIYIN_GENERAL_LEDGER_URL" doc:"empty (the sandbox's)" help:"base URL of the bank's general ledger, where each closed day's journal is posted"`
	GeneralLedgerToken    string        `env:"TIYIN_GENERAL_LEDGER_TOKEN" secret:"true" doc:"empty" help:"bearer token sent to the general ledger"`
	AdminAddr             string        `env:"TIYIN_ADMIN_ADDR" envDefault:"127.0.0.1:9090" help:"the admin listener: the operators' console /console/, /metrics, the profiler with TIYIN_PPROF; off: none. Beyond loopback it needs TIYIN_ADMIN_PUBLIC=true"`
	AdminPublic           bool          `env:"TIYIN_ADMIN_PUBLIC" envDefault:"false" help:"allow TIYIN_ADMIN_ADDR beyond loopback (behind the bank's firewall); tiyin warns at start"`
	AdminHosts            string        `env:"TIYIN_ADMIN_HOSTS" doc:"localhost,127.0.0.1,::1" help:"host names (comma-separated, no port) the admin listener (console, /metrics, profiler) answers to; any other Host gets 421 (DNS rebinding). A Prometheus scraping by address needs that address here"`
	Pprof                 bool          `env:"TIYIN_PPROF" envDefault:"false" help:"serve Go's profiler at /debug/pprof/ on the admin listener"`
	AuditCheckpointURL    string        `env:"TIYIN_AUDIT_CHECKPOINT_URL" doc:"empty (the log line only)" help:"where tiyin audit checkpoint also POSTs the audit log's head as JSON, e.g. the bank's SIEM; https outside the sandbox (operations.md, Anchoring the audit log)"`
	AuditCheckpointToken  string        `env:"TIYIN_AUDIT_CHECKPOINT_TOKEN" secret:"true" doc:"empty" help:"bearer token sent with each checkpoint to TIYIN_AUDIT_CHECKPOINT_URL; never logged"`
	CollectionsBuckets    string        `env:"TIYIN_COLLECTIONS_BUCKETS" envDefault:"1-7,8-30,31-90,91-" help:"the collections queues' buckets of days overdue, ascending from day 1, the last open (91-); an overdue reminder goes once in each"`
	CollectionsEvery      time.Duration `env:"TIYIN_COLLECTIONS_EVERY" envDefault:"1m" help:"how often promises to pay are decided and reminders sent (1s at least); the PAR snapshot is taken again at most every hour"`
	ReminderHours         string        `env:"TIYIN_REMINDER_HOURS" envDefault:"9-20" help:"the hours, Tashkent time, reminders go to borrowers: from 09:00 to 20:00 by default, never at night"`
	RemindersPerWeek      int           `env:"TIYIN_REMINDERS_PER_WEEK" envDefault:"3" help:"most reminders one borrower (all their loans) gets in any seven days; 0 = none at all"`
	ReminderDaysBefore    int           `env:"TIYIN_REMINDER_DAYS_BEFORE" envDefault:"3" help:"a reminder goes this many days before an instalment's date; 0 = only after a missed one"`
}

// setting is one field of settings as its tags describe it.
type setting struct {
	name, def, help, field string
	secret                 bool
}

// settingList is every setting, in the struct's order.
var settingList = func() []setting {
	t := reflect.TypeFor[settings]()
	out := make([]setting, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		def := cmp.Or(f.Tag.Get("doc"), f.Tag.Get("envDefault"), "empty")
		out[i] = setting{name: f.Tag.Get("env"), def: def, help: f.Tag.Get("help"), field: f.Name, secret: f.Tag.Get("secret") == "true"}
	}
	return out
}()

// readSettings reads the environment into settings: a variable set to "" counts as unset; a
// secret's <NAME>_FILE is read in its place (both at once is refused); a value that is not of
// its type is refused naming the variable and the value. Every problem is reported at once.
func readSettings() (settings, []error) {
	environ := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); v != "" {
			environ[k] = v
		}
	}
	var errs []error
	for _, s := range settingList {
		path := environ[s.name+"_FILE"]
		if !s.secret || path == "" {
			continue
		}
		if environ[s.name] != "" {
			errs = append(errs, fmt.Errorf("%s and %s_FILE are both set: give one", s.name, s.name))
			continue
		}
		b, err := os.ReadFile(path) //nolint:gosec // the operator names the file, as the variable itself would be
		if err != nil {
			errs = append(errs, fmt.Errorf("%s_FILE: %w", s.name, err))
			continue
		}
		environ[s.name] = strings.TrimRight(string(b), "\r\n")
	}
	var st settings
	err := envlib.ParseWithOptions(&st, envlib.Options{Environment: environ})
	var agg envlib.AggregateError
	if errors.As(err, &agg) {
		for _, e := range agg.Errors {
			errs = append(errs, named(e, environ))
		}
	} else if err != nil {
		errs = append(errs, err)
	}
	return st, errs
}

// named says which variable a parse error is about, its value and what it wants.
func named(err error, environ map[string]string) error {
	var pe envlib.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	for _, s := range settingList {
		if s.field != pe.Name {
			continue
		}
		want := "a value of its kind"
		switch pe.Type.String() {
		case "time.Duration":
			want = "a duration such as 30m or 72h"
		case "int":
			want = "a whole number ≥ 0"
		case "bool", "*bool":
			want = "true or false"
		}
		return fmt.Errorf("%s=%q: want %s", s.name, environ[s.name], want)
	}
	return err
}

// envHelp is serve --help's list of the settings, from the same tags.
func envHelp() string {
	var b strings.Builder
	for _, s := range settingList {
		help := s.help
		if s.secret {
			help += "; or the file " + s.name + "_FILE names"
		}
		fmt.Fprintf(&b, "  %-30s %s [default: %s]\n", s.name, help, s.def)
	}
	return b.String()
}

// configurationTable is docs/configuration.md's table of the settings, from the same tags.
func configurationTable() string {
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n|---|---|---|\n")
	for _, s := range settingList {
		def := s.def
		if !strings.Contains(def, " ") && def != "empty" && def != "unset" {
			def = "`" + def + "`"
		}
		help := s.help
		if s.secret {
			help += "; also read from the file `" + s.name + "_FILE` names"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.name, def, help)
	}
	return b.String()
}
