package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/adapters/jobs"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// execute runs root on args and returns the exit status: 0, 2 for a command line it does not
// understand, 1 for any other failure (said on stderr).
func execute(root *cobra.Command, args []string) int {
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tiyin:", err)
		var usage usageError
		if errors.As(err, &usage) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a command line tiyin does not understand (an unknown command or flag, a
// wrong number of arguments): exit status 2, as a shell script expects.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// strictUsage makes every command refuse what it does not understand: a command group given
// an unknown subcommand fails instead of printing its help, and argument and flag errors
// become usage errors.
func strictUsage(c *cobra.Command) {
	if c.HasSubCommands() && c.Args == nil {
		c.Args = cobra.NoArgs
		if c.Run == nil && c.RunE == nil {
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
			}
			return nil
		}
	}
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	if c.Runnable() && c.PreRunE == nil && c.PreRun == nil {
		// cobra checks required flags after the pre-run, with a plain error: checked here
		// first, a missing one is a usage error too.
		c.PreRunE = func(c *cobra.Command, _ []string) error {
			if err := errors.Join(c.ValidateRequiredFlags(), c.ValidateFlagGroups()); err != nil {
				return usageError{fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		strictUsage(sub)
	}
}

func rootCmd(o options) *cobra.Command {
	root := &cobra.Command{
		Use:           "tiyin",
		Short:         "tiyin is a banking core for partner applications: microloans, transfers, repayments and cards",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(o), migrateCmd(o), partnerCmd(o), operatorCmd(o), auditCmd(o), ledgerCmd(o), booksCmd(o), reconcileCmd(o), resealCmd(o), healthcheckCmd(), versionCmd())
	strictUsage(root)
	return root
}

func serveCmd(o options) *cobra.Command {
	var migrateFirst bool
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP API, the admin listener (console, /metrics) and the background workers",
		Long: "Run the partner API (TIYIN_HTTP_ADDR), the admin listener with the operators' console and\n" +
			"/metrics (TIYIN_ADMIN_ADDR, loopback by default) and the background workers. It applies the\n" +
			"database's schema first; with TIYIN_MIGRATE=false it checks it instead and stops, naming\n" +
			"`tiyin migrate`, when it is behind (--migrate applies it all the same).\n\n" +
			"Configured by environment variables (docs/configuration.md tells more):\n\n" + envHelp(),
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := configure(o)
			if err != nil {
				return err
			}
			cfg.Migrate = cfg.Migrate || migrateFirst
			return serve(cfg, o)
		},
	}
	c.Flags().BoolVar(&migrateFirst, "migrate", false, "apply the database schema before serving (as tiyin migrate does)")
	return c
}

func migrateCmd(o options) *cobra.Command {
	c := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database schema (any number of nodes and commands may run it at once); list the operators to rename",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openDB(cmd.Context(), o, schemaApply, func(ctx context.Context, in cli) error {
				fmt.Println("migrations applied")
				rename, err := operatorsToRename(ctx, in.console)
				if err != nil {
					return err
				}
				reportOperatorsToRename(rename)
				return nil
			})
		},
	}
	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "Say the database schema's version, the migrations this build would apply and the operators to rename; exit 1 when a migration is pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return openDB(cmd.Context(), o, schemaAsIs, func(ctx context.Context, in cli) error {
				current, latest, pending, err := in.db.SchemaVersion(ctx)
				if err != nil {
					return err
				}
				// An older schema may lack the operators' columns this build reads: tiyin
				// migrate reports them once it is applied.
				rename := []string{}
				if len(pending) == 0 {
					if rename, err = operatorsToRename(ctx, in.console); err != nil {
						return err
					}
				}
				if asJSON {
					// Lists, never null: a script takes their length.
					if err := json.NewEncoder(os.Stdout).Encode(map[string]any{"current": current, "latest": latest,
						"pending": listOf(pending), "operatorsToRename": listOf(rename)}); err != nil {
						return err
					}
				} else {
					fmt.Printf("schema version %d; this build's is %d\n", current, latest)
					for _, p := range pending {
						fmt.Println("pending:", p)
					}
					reportOperatorsToRename(rename)
				}
				if len(pending) > 0 {
					return fmt.Errorf("%d migrations pending: run tiyin migrate", len(pending))
				}
				return nil
			})
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, `print {"current", "latest", "pending", "operatorsToRename"} as JSON`)
	c.AddCommand(status)
	return c
}

// listOf is s, or an empty list for nil, so JSON says [] rather than null.
func listOf(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// cli is what a one-shot command works with: its configuration, the database and the use
// cases, built by the server's own graph without its listener and workers.
type cli struct {
	cfg config
	db  *store.DB
	app *application.App
	// console is the operator console's use cases, which manage operators and partners.
	console appconsole.Console
	clock   ports.Clock
}

// schema is what a command does with the database's schema before it works.
type schema int

const (
	// schemaAsConfigured: applied, or with TIYIN_MIGRATE=false checked to be this build's.
	schemaAsConfigured schema = iota
	// schemaApply: the schema is applied, a SQLite file created if need be (tiyin migrate).
	schemaApply
	// schemaAsIs: the schema is read, never changed (tiyin migrate status).
	schemaAsIs
	// schemaCurrent: the schema is never changed, and must be this build's: a command that
	// only reads (tiyin ledger check) refuses a database without tiyin's schema or with an
	// older one instead of migrating it and finding an empty database sound.
	schemaCurrent
)

// readOnly opens the configured database for a command that only reads it (or, like tiyin
// audit verify, records no more than its own result): it never applies the schema, whatever
// TIYIN_MIGRATE says, and refuses a database whose schema is missing or behind this build's.
func readOnly(ctx context.Context, o options, fn func(context.Context, cli) error) error {
	return openDB(ctx, o, schemaCurrent, fn)
}

// withDB opens the configured database for a one-shot command, its schema applied (or, with
// TIYIN_MIGRATE=false, checked). It names the database on stderr, and refuses to create a SQLite
// file that is not there: a command run in the wrong directory must not quietly work on an
// empty database.
func withDB(ctx context.Context, o options, fn func(context.Context, cli) error) error {
	return openDB(ctx, o, schemaAsConfigured, fn)
}

// openDB is withDB with the schema handled as s says.
func openDB(ctx context.Context, o options, s schema, fn func(context.Context, cli) error) error {
	cfg, err := configure(o)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "tiyin: database", describeDatabase(cfg))
	if cfg.DatabaseURL == "" && s != schemaApply {
		if _, err := os.Stat(cfg.SQLitePath); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no database at %s: run this where tiyin serve runs, set TIYIN_SQLITE_PATH (or TIYIN_DATABASE_URL), or create it with tiyin migrate",
				cfg.SQLitePath)
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log, err := newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	c := cli{cfg: cfg}
	app := fx.New(graph(cfg, log, o), fx.Populate(&c.db, &c.app, &c.console, &c.clock))
	if err := app.Start(ctx); err != nil {
		return rootCause(err)
	}
	defer func() { _ = app.Stop(context.WithoutCancel(ctx)) }()
	if s == schemaCurrent {
		err = checkCurrentSchema(ctx, c.db, cfg)
	} else {
		err = prepareSchema(ctx, c.db, s == schemaApply || (s == schemaAsConfigured && cfg.Migrate), s == schemaAsIs)
	}
	if err != nil {
		return err
	}
	// The sandbox's partners' clocks are read as a node reads them when it starts, so a
	// command sees the time the server does (a day a partner's clock closed, say).
	if sc, ok := c.clock.(*store.SandboxClock); ok && s != schemaAsIs {
		if err := sc.Refresh(ctx); err != nil {
			return err
		}
	}
	return fn(ctx, c)
}

// checkCurrentSchema refuses a database that has no tiyin schema, or one behind this build's,
// naming the database (never its password): a read-only command run against the wrong
// database, an empty one a restore did not fill, must fail rather than report it sound.
func checkCurrentSchema(ctx context.Context, db *store.DB, cfg config) error {
	current, latest, pending, err := db.SchemaVersion(ctx)
	switch {
	case err != nil:
		return err
	case current == 0:
		return fmt.Errorf("%s has no tiyin schema (%d migrations pending): is it the right database? "+
			"This command only reads and never applies the schema: check TIYIN_DATABASE_URL or TIYIN_SQLITE_PATH, or run tiyin migrate first",
			describeDatabase(cfg), len(pending))
	case len(pending) > 0:
		return fmt.Errorf("%s has tiyin's schema at version %d and this build needs %d (%d migrations pending): "+
			"this command only reads and never applies the schema; run tiyin migrate first",
			describeDatabase(cfg), current, latest, len(pending))
	}
	return nil
}

// prepareSchema applies the schema (apply), leaves it (asIs), or checks that it is not behind
// this build's: a node or command of an older build keeps working on a newer schema (the
// migrations only add), a newer build on an older one stops and says what to run.
func prepareSchema(ctx context.Context, db *store.DB, apply, asIs bool) error {
	switch {
	case apply:
		return migrate(ctx, db)
	case asIs:
		return nil
	}
	current, latest, pending, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("the database's schema is at version %d and this build needs %d (%d migrations pending): "+
			"run tiyin migrate first, or start with --migrate (TIYIN_MIGRATE=true)", current, latest, len(pending))
	}
	return nil
}

// migrate applies the schema's migrations, then re-keys the idempotency fingerprints that an
// earlier version stored as plain hashes (it needs the data key, which SQL migrations do not
// have), fills in the first unpaid due date of loans stored before it was kept (it needs
// the domain's reading of their books) and writes to the audit log the balance breaks
// migration 00031 folded (an audit entry is chained under the data key).
func migrate(ctx context.Context, db *store.DB) error {
	return db.WithMigrationLock(ctx, func() error { return migrateLocked(ctx, db) })
}

// migrateLocked is migrate, under the migration lock.
func migrateLocked(ctx context.Context, db *store.DB) error {
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if db.Sealer != nil {
		if _, err := store.NewUnitOfWork(db).RekeyPlainFingerprints(ctx, application.RekeyFingerprint(db.Sealer)); err != nil {
			return fmt.Errorf("re-key idempotency fingerprints: %w", err)
		}
	}
	if _, err := db.IndexPINFLs(ctx, true); err != nil {
		return fmt.Errorf("index the applications' PINFLs: %w", err)
	}
	if _, err := db.BackfillFirstUnpaidDue(ctx); err != nil {
		return fmt.Errorf("fill in the loans' first unpaid due dates: %w", err)
	}
	if _, err := db.AuditFoldedBreaks(ctx); err != nil {
		return fmt.Errorf("audit the balance breaks migration 00031 folded: %w", err)
	}
	return jobs.Migrate(ctx, jobDatabase(db))
}

// jobDatabase is the store's database as the job queue takes it: the two adapters share it
// through the wiring, not an import.
func jobDatabase(db *store.DB) jobs.Database {
	return jobs.Database{Pool: db.Pool, SQL: db.SQL, InPgxTx: store.WithPgxTx, SQLTx: store.SQLTx}
}

// partnerNamed makes c take the partner's name as its one argument, NAME, or as --name NAME
// (the style create had first); *name holds it when c runs.
func partnerNamed(c *cobra.Command, name *string) *cobra.Command {
	var flag string
	c.Flags().StringVar(&flag, "name", "", "the partner's name (the same as the NAME argument)")
	c.Args = func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) > 1:
			return fmt.Errorf("one partner NAME, not %d arguments (quote a name with spaces)", len(args))
		case len(args) == 1 && flag != "" && flag != args[0]:
			return fmt.Errorf("NAME %q and --name %q differ: give one", args[0], flag)
		case len(args) == 1:
			*name = args[0]
		case flag != "":
			*name = flag
		default:
			return errors.New("the partner's NAME is required")
		}
		return nil
	}
	return c
}

func partnerCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "partner", Short: "Manage partners and their API keys"}
	var asJSON bool
	var name string
	create := partnerNamed(&cobra.Command{
		Use:   "create NAME",
		Short: "Create a partner and print its API key (shown once)",
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				np, err := in.console.Actions.Partner.Handle(ctx, appconsole.CLIActor,
					appconsole.PartnerAction{Name: name, Action: appconsole.PartnerCreate})
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(os.Stdout).Encode(map[string]string{"id": np.Partner.ID.String(), "name": np.Partner.Name, "apiKey": np.APIKey})
				}
				fmt.Printf("partner %q created (id %s)\nAPI key (shown once, keep it secret): %s\n", np.Partner.Name, np.Partner.ID, np.APIKey)
				return nil
			})
		},
	}, &name)
	create.Flags().BoolVar(&asJSON, "json", false, `print {"id", "name", "apiKey"} as JSON`)

	list := &cobra.Command{
		Use:   "list",
		Short: "List partners",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				ps, err := in.app.Partners.ListPartners.Handle(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]map[string]any, len(ps))
					for i, p := range ps {
						out[i] = map[string]any{"id": p.ID.String(), "name": p.Name, "disabled": p.Disabled,
							"createdAt": p.CreatedAt.In(domain.Tashkent).Format(time.RFC3339), "webhookUrl": p.WebhookURL}
					}
					return json.NewEncoder(os.Stdout).Encode(out)
				}
				w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "NAME\tID\tSTATUS\tCREATED\tWEBHOOK")
				for _, p := range ps {
					status := "enabled"
					if p.Disabled {
						status = "disabled"
					}
					hook := p.WebhookURL
					if hook == "" {
						hook = "-"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.ID, status, p.CreatedAt.In(domain.Tashkent).Format(time.RFC3339), hook)
				}
				return w.Flush()
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	enabled := func(enable bool) *cobra.Command {
		verb, short := "disable", "Disable a partner: its calls answer code 3 within 5 seconds"
		if enable {
			verb, short = "enable", "Enable a disabled partner again: its key works within 5 seconds"
		}
		var name string
		return partnerNamed(&cobra.Command{
			Use:   verb + " NAME",
			Short: short,
			RunE: func(c *cobra.Command, _ []string) error {
				return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
					action := appconsole.PartnerDisable
					if enable {
						action = appconsole.PartnerEnable
					}
					_, err := in.console.Actions.Partner.Handle(ctx, appconsole.CLIActor, appconsole.PartnerAction{Name: name, Action: action})
					if err != nil {
						return partnerErr(err, name)
					}
					fmt.Printf("partner %q %sd\n", name, verb)
					return nil
				})
			},
		}, &name)
	}
	var rotated string
	var overlap time.Duration
	rotate := partnerNamed(&cobra.Command{
		Use:   "rotate-key NAME",
		Short: "Replace a partner's API key and print the new one; the old key keeps working for --overlap (24h), 0 stops it now",
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				k, err := in.console.Actions.Partner.Handle(ctx, appconsole.CLIActor,
					appconsole.PartnerAction{Name: rotated, Action: appconsole.PartnerRotateKey, Overlap: overlap})
				if err != nil {
					return partnerErr(err, rotated)
				}
				oldUntil := ""
				if !k.OldKeyUntil.IsZero() {
					oldUntil = k.OldKeyUntil.In(domain.Tashkent).Format(time.RFC3339)
				}
				if asJSON {
					return json.NewEncoder(os.Stdout).Encode(map[string]string{"name": rotated, "apiKey": k.APIKey, "oldKeyUntil": oldUntil})
				}
				fmt.Printf("new API key of %q (shown once): %s\n", rotated, k.APIKey)
				if oldUntil == "" {
					fmt.Println("the old key stops working within 5 seconds")
				} else {
					fmt.Printf("the old key keeps working until %s\n", oldUntil)
				}
				return nil
			})
		},
	}, &rotated)
	rotate.Flags().BoolVar(&asJSON, "json", false, `print {"name", "apiKey", "oldKeyUntil"} as JSON (oldKeyUntil empty when the old key stopped)`)
	rotate.Flags().DurationVar(&overlap, "overlap", domain.DefaultKeyOverlap, "how long the old key keeps working beside the new one, up to 168h (0: it stops now)")
	cmd.AddCommand(create, list, enabled(false), enabled(true), rotate, setWebhookCmd(o))
	return cmd
}

func setWebhookCmd(o options) *cobra.Command {
	var url string
	var overlap time.Duration
	var remove, asJSON bool
	var name string
	c := partnerNamed(&cobra.Command{
		Use:   "set-webhook NAME --url URL",
		Short: "Send a partner's events to URL, with a new signing secret printed once (--remove stops them)",
		Long: `Sets the URL tiyin POSTs the partner's events to, and a new signing secret, printed once:
whsec_ and the base64 of 32 random bytes, as Standard Webhooks (https://www.standardwebhooks.com)
makes them.

Every delivery is signed by the Standard Webhooks specification, in three headers:
  webhook-id: <the event's id>
  webhook-timestamp: <unix seconds, when sent>
  webhook-signature: v1,<base64 HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body)>
The key is the secret's part after whsec_, base64-decoded (also for an older secret, whsec_ and
64 hex digits: never hex-decode it). To verify, give the secret as printed to any Standard
Webhooks library (Go: client.VerifyWebhook of github.com/tiyin/tiyin/client, or
standard-webhooks; JavaScript and Python: standardwebhooks), or compute the HMAC above and
compare it in constant time with each v1,… of the space-separated list; refuse a timestamp
more than 5 minutes from now. The deprecated X-Tiyin-Signature: t=<unix>,v1=<hex
HMAC-SHA256(whole secret, t + "." + raw body)> is sent beside them until 2027-06-30.

Setting it again makes a new secret; the one it replaces signs beside it for --overlap (24h),
as a second v1,… in webhook-signature, so the partner can switch without refusing a delivery.
The secret is kept sealed under TIYIN_DATA_KEY, so serve must run with the same data key.`,
		RunE: func(c *cobra.Command, _ []string) error {
			if remove == (url != "") { // --url "" or --remove=false: the flag groups let them by
				return usageError{fmt.Errorf("give either --url URL or --remove (see %s --help)", c.CommandPath())}
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if len(in.cfg.DataKey) == 0 {
					return errors.New("TIYIN_DATA_KEY is not set: the webhook secret is sealed with it (the same key serve runs with)")
				}
				ch, err := in.console.Actions.Partner.Handle(ctx, appconsole.CLIActor, appconsole.PartnerAction{Name: name,
					Action: appconsole.PartnerSetWebhook, URL: url, AllowHTTP: in.cfg.Sandbox, Overlap: overlap})
				secret := ch.WebhookSecret
				if err != nil {
					return partnerErr(err, name)
				}
				switch {
				case asJSON:
					return json.NewEncoder(os.Stdout).Encode(map[string]string{"name": name, "webhookUrl": url, "secret": secret})
				case remove:
					fmt.Printf("webhook of %q removed; events not yet delivered are dropped\n", name)
				default:
					fmt.Printf("webhook of %q set to %s\nsigning secret (shown once, keep it secret): %s\n", name, url, secret)
				}
				return nil
			})
		},
	}, &name)
	c.Flags().StringVar(&url, "url", "", "absolute http(s) URL the events are POSTed to")
	c.Flags().BoolVar(&remove, "remove", false, "stop sending the partner's events")
	c.Flags().DurationVar(&overlap, "overlap", domain.DefaultKeyOverlap,
		"how long the secret the new one replaces still signs deliveries beside it, up to 168h (0: not at all)")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"name", "webhookUrl", "secret"} as JSON`)
	c.MarkFlagsOneRequired("url", "remove")
	c.MarkFlagsMutuallyExclusive("url", "remove")
	return c
}

func ledgerCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Inspect the double-entry ledger"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Prove the ledger consistent: postings balanced, balances equal to entries, no demand account below zero",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				r, err := in.app.Operations.CheckLedger.Handle(ctx)
				if err != nil {
					return err
				}
				fmt.Printf("debits %d, credits %d\n", r.Debits, r.Credits)
				if !r.OK() {
					return fmt.Errorf("ledger inconsistent: unbalanced postings %v, drifted accounts %v, accounts below zero %v",
						r.Unbalanced, r.Drifted, r.BelowFloor)
				}
				fmt.Println("ledger consistent")
				return nil
			})
		},
	})
	return cmd
}

func reconcileCmd(o options) *cobra.Command {
	var date, network string
	var asJSON bool
	c := &cobra.Command{
		Use:   "reconcile",
		Short: "Compare a business day with the networks' statements and core banking's closing balances, prove the books, and record every break",
		Long: `Reads tiyin's transfers to cards and card repayments of the day (Asia/Tashkent), asks each
network (UZCARD, HUMO) for its statement of the day, matches the lines by id, then by amount and
time; then compares the ledger's closing balances of the loans' accounts with core banking's
(CORE_BANKING); then proves the books (BOOKS): the sum over loans of each per-loan account kind
against its control account, and each post of the day to the general ledger against core
banking's acknowledgement. Every difference is recorded as a break (docs/reconciliation.md);
--network reconciles one source. Only a closed day is reconciled: one before today (Asia/Tashkent). Run it
again, or on several nodes at once: each break is recorded once. It prints each source's
figures, how the day's breaks stand (open, resolved, explained) and each break it found first,
with both sides.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := time.Parse(time.DateOnly, date)
			if err != nil {
				return fmt.Errorf("--date: give the business day as YYYY-MM-DD (%w)", err)
			}
			sources := application.ReconciliationSources()
			if network != "" {
				if !slices.Contains(sources, network) {
					return fmt.Errorf("--network: UZCARD, HUMO, CORE_BANKING or BOOKS, not %q", network)
				}
				sources = []string{network}
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				out := map[string]application.ReconcileResult{}
				for _, n := range sources {
					r, err := in.app.Operations.ReconcileDay.Handle(ctx, application.ReconcileDay{Day: day, Source: n})
					if errors.Is(err, domain.ErrDayNotClosed) {
						return err
					}
					if err != nil {
						return fmt.Errorf("%s: %w", n, err)
					}
					out[n] = r
					if !asJSON {
						printReconciled(os.Stdout, date, n, r)
					}
				}
				if asJSON {
					return json.NewEncoder(os.Stdout).Encode(out)
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&date, "date", "", "the business day, YYYY-MM-DD (Asia/Tashkent)")
	c.Flags().StringVar(&network, "network", "", "UZCARD, HUMO, CORE_BANKING (the closing balances) or BOOKS (the books' proof); all when not given")
	c.Flags().BoolVar(&asJSON, "json", false, "print each source's result as JSON")
	_ = c.MarkFlagRequired("date")
	return c
}

// printReconciled says what a run of a day with a source found: the lines, the breaks found
// and how many were new, how the day's breaks stand (open, resolved, explained), and each new
// break with both sides (an amount in tiyin, and how the side says the line ended).
func printReconciled(w io.Writer, date, source string, r application.ReconcileResult) {
	fmt.Fprintf(w, "%s %s: tiyin %d lines, theirs %d, matched %d; breaks found %d (%d new); the day's breaks: %d open, %d resolved, %d explained\n",
		date, source, r.Ours, r.Theirs, r.Matched, len(r.Found), r.New, r.Standing[ports.BreakOpen], r.Standing[ports.BreakResolved],
		r.Standing[ports.BreakExplained])
	for _, b := range r.NewBreaks {
		fmt.Fprintf(w, "  new %s %s %s: tiyin %s, %s %s (%s)\n", b.Kind, b.Source, b.LineID, side(b.Ours), b.Source, side(b.Theirs), b.Status)
	}
}

// side is one side of a break as printReconciled shows it: "-" where the side has no line.
func side(l *domain.StatementLine) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("%d %s", l.Amount, l.Status)
}

func resealCmd(o options) *cobra.Command {
	return &cobra.Command{
		Use:   "reseal",
		Short: "Re-encrypt personal data and secrets under the current TIYIN_DATA_KEY (after a key rotation)",
		Long: `Moves every sealed value (clientData, webhook secrets, operators' second factors) to the
current TIYIN_DATA_KEY and stores any card PINFL as its blind index. Run it after rotating the
key with the old key in TIYIN_DATA_KEY_RETIRED; once it has run, the retired key can be dropped.
It works in batches and may run while tiyin serves, and again at any time.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if in.db.Sealer == nil {
					return errNoDataKey
				}
				r, err := in.db.Reseal(ctx)
				if err != nil {
					return err
				}
				fmt.Printf("resealed under key %s: %d clientData, %d card PINFLs, %d webhook secrets, %d phones and names, %d stored answers, %d phone indexes, %d application PINFL indexes, %d second factors\n",
					in.db.Sealer.KeyID(), r.ClientData, r.PINFLs, r.WebhookSecrets, r.Fields, r.Answers, r.PhoneIndexes, r.PINFLIndexes,
					r.SecondFactors)
				return nil
			})
		},
	}
}

func partnerErr(err error, name string) error {
	if errors.Is(err, domain.ErrPartnerNotFound) {
		return fmt.Errorf("no partner named %q (see tiyin partner list)", name)
	}
	return err
}
