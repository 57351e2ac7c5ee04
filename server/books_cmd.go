package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/adapters/journal"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

func booksCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "books", Short: "Close the books on an accrual basis and read a day's trial balance, report and journal"}
	cmd.AddCommand(booksCloseCmd(o), trialBalanceCmd(o), bookReportCmd(o), journalCmd(o))
	return cmd
}

// booksDate reads --date.
func booksDate(s string) (time.Time, error) {
	day, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return day, fmt.Errorf("--date: give the business day as YYYY-MM-DD (%w)", err)
	}
	return day, nil
}

// dayCommand is a books command that reads one business day (--date, required) and prints it
// as text, or as JSON with --json (jsonShape names its fields); it reads, never writes.
func dayCommand(o options, use, short, long, jsonShape string, show func(ctx context.Context, in cli, day time.Time, date string, asJSON bool) error) *cobra.Command {
	var date string
	var asJSON bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := booksDate(date)
			if err != nil {
				return err
			}
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error { return show(ctx, in, day, date, asJSON) })
		},
	}
	c.Flags().StringVar(&date, "date", "", "the business day, YYYY-MM-DD (Asia/Tashkent)")
	c.Flags().BoolVar(&asJSON, "json", false, "print "+jsonShape)
	_ = c.MarkFlagRequired("date")
	return c
}

func booksCloseCmd(o options) *cobra.Command {
	var date string
	c := &cobra.Command{
		Use:   "close",
		Short: "Close every day not yet closed up to --date: accruals, overdue principal, non-accrual and provisions (accounting.md)",
		Long: `Closes the books of every loan for each day after its last close, up to --date (Asia/Tashkent),
and records the days closed. In the sandbox each partner's loans close on that partner's clock: a
day after a partner's today is closed only up to its today. It is resumable: a close stopped part
way leaves the loans it closed closed, and the next run closes the rest. A day closed already
posts nothing. The days closed are then posted to the bank's general ledger, in day order, with
any an earlier run left unposted or unacknowledged, and each day that is over is proved (the
books' daily proof: each per-loan account against its control account, each post against core
banking's acknowledgement).

It prints, for each clock, the day closed through, the loans visited and the postings made, then
for each day posted whether its proof found breaks (SUBLEDGER_DIFFERS, GL_ACK_DIFFERS) and how
many, or that the day is not over yet. It exits non-zero when a proof found a break (the break is
recorded for the console's reconciliation page), and when a post to the general ledger failed (the
next close posts it again).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := booksDate(date)
			if err != nil {
				return err
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				done, err := in.app.Operations.CloseBooks.CloseAndProve(ctx, day)
				return errors.Join(err, printClosed(os.Stdout, date, done))
			})
		},
	}
	c.Flags().StringVar(&date, "date", "", "the last business day to close, YYYY-MM-DD (Asia/Tashkent)")
	_ = c.MarkFlagRequired("date")
	return c
}

// errProofBreaks means the books' daily proof of a day a close posted found breaks.
var errProofBreaks = errors.New("the books' daily proof found breaks")

// printClosed writes what a close did (date is the day asked): each clock's close, then each
// day's proof; an error when a proof found breaks, naming the days.
func printClosed(w io.Writer, date string, done application.BooksClosed) error {
	if len(done.Scopes) == 0 {
		_, _ = fmt.Fprintf(w, "%s: closed already\n", date)
	}
	for _, s := range done.Scopes {
		scope := s.Scope
		if scope == "" {
			scope = "system clock"
		}
		_, _ = fmt.Fprintf(w, "%s: closed through %s, %d loans, %d postings, %s\n", scope, s.Through.Format(time.DateOnly),
			s.Loans, s.Postings, s.Duration.Round(time.Millisecond))
	}
	found := 0
	var days []string
	kinds := map[domain.BreakKind]bool{}
	for _, p := range done.Proofs {
		d := p.Day.Format(time.DateOnly)
		switch n := p.Found(); {
		case p.Pending:
			_, _ = fmt.Fprintf(w, "%s: not proved yet: the day is not over (a later close proves it)\n", d)
		case n == 0:
			_, _ = fmt.Fprintf(w, "%s: the daily proof found no breaks\n", d)
		default:
			found += n
			days = append(days, d)
			var each []string
			for _, k := range slices.Sorted(maps.Keys(p.Breaks)) {
				each = append(each, fmt.Sprintf("%s %d", k, p.Breaks[k]))
				kinds[k] = true
			}
			_, _ = fmt.Fprintf(w, "%s: the daily proof found %d %s (%s; %d new)\n", d, n, plural(n, "break", "breaks"),
				strings.Join(each, ", "), p.New)
		}
	}
	if found == 0 {
		return nil
	}
	var why []string
	if kinds[domain.BreakSubledgerDiffers] {
		why = append(why, "a per-loan account's sum over loans differs from its control account")
	}
	if kinds[domain.BreakGLAckDiffers] {
		why = append(why, "core banking acknowledged other totals than were posted to its general ledger")
	}
	return fmt.Errorf("%w: %d on %s (%s); nothing was adjusted: work the breaks of source BOOKS on the console's "+
		"reconciliation page (docs/reconciliation.md, The books' daily proof)", errProofBreaks, found, strings.Join(days, ", "),
		strings.Join(why, "; "))
}

// plural is one for 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// trialBalanceJSON is the trial balance's JSON (docs/accounting.md, Trial balance).
type trialBalanceJSON struct {
	Date          string             `json:"date"`
	Accounts      []trialAccountJSON `json:"accounts"`
	Debits        int64              `json:"debits"`
	Credits       int64              `json:"credits"`
	GeneralLedger generalLedgerJSON  `json:"generalLedger"`
}

// generalLedgerJSON is what the bank's general ledger acknowledged of a day (accounting.md).
type generalLedgerJSON struct {
	Acknowledged bool         `json:"acknowledged"`
	Posts        []glPostJSON `json:"posts"`
}

type glPostJSON struct {
	Sequence       int    `json:"sequence"`
	Debits         int64  `json:"debits"`
	Credits        int64  `json:"credits"`
	Reference      string `json:"reference"`
	AcknowledgedAt string `json:"acknowledgedAt,omitempty"`
	Attempts       int    `json:"attempts"`
	Error          string `json:"error,omitempty"`
}

func generalLedger(posts []ports.GLPost) generalLedgerJSON {
	out := generalLedgerJSON{Acknowledged: ports.GLDayAcknowledged(posts), Posts: []glPostJSON{}}
	for _, p := range posts {
		t := p.Journal.Totals()
		j := glPostJSON{Sequence: p.Journal.Sequence, Debits: t.Debits, Credits: t.Credits, Reference: p.Reference,
			Attempts: p.Attempts, Error: p.Error}
		if p.Reference != "" {
			j.AcknowledgedAt = p.AcknowledgedAt.In(domain.Tashkent).Format(time.RFC3339Nano)
		}
		out.Posts = append(out.Posts, j)
	}
	return out
}

// printGeneralLedger writes what the general ledger acknowledged of the day, a line a post.
func printGeneralLedger(w io.Writer, g generalLedgerJSON) {
	if len(g.Posts) == 0 {
		_, _ = fmt.Fprintln(w, "general ledger: not posted")
	}
	for _, p := range g.Posts {
		if p.Reference != "" {
			_, _ = fmt.Fprintf(w, "general ledger: sequence %d (debits %d, credits %d) acknowledged %s at %s\n", p.Sequence, p.Debits,
				p.Credits, p.Reference, p.AcknowledgedAt)
			continue
		}
		_, _ = fmt.Fprintf(w, "general ledger: sequence %d (debits %d, credits %d) not acknowledged yet (%d attempts failed: %s); the next close posts it again\n",
			p.Sequence, p.Debits, p.Credits, p.Attempts, p.Error)
	}
}

type trialAccountJSON struct {
	Kind    string `json:"kind"`
	GL      string `json:"gl"`
	Opening int64  `json:"opening"`
	Debits  int64  `json:"debits"`
	Credits int64  `json:"credits"`
	Closing int64  `json:"closing"`
}

func trialBalanceCmd(o options) *cobra.Command {
	return dayCommand(o, "trial-balance",
		"Print a day's trial balance: each account kind's general ledger account, opening, debits, credits and closing",
		`Prints each account kind with its general ledger account (TIYIN_BOOKS_FILE), its opening balance,
the day's debits and credits and its closing balance (balances are debits minus credits, in
tiyin), and the day's total debits and credits, which are equal. Off-balance memo accounts are
listed too; each pair nets to zero. Last, whether the bank's general ledger acknowledged the
day's journal, which each close posts to it: each post's sequence, totals and core banking's
reference, or the attempts that failed (the next close posts it again). It reads, never writes.`,
		`{"date", "accounts": [{"kind", "gl", "opening", "debits", "credits", "closing"}], "debits", "credits", "generalLedger"}`,
		func(ctx context.Context, in cli, day time.Time, date string, asJSON bool) error {
			tb, err := in.app.Operations.TrialBalance.Handle(ctx, day)
			if err != nil {
				return err
			}
			out := trialBalanceJSON{Date: date, Accounts: []trialAccountJSON{}, Debits: tb.Debits, Credits: tb.Credits,
				GeneralLedger: generalLedger(tb.GL)}
			for _, a := range tb.Accounts {
				out.Accounts = append(out.Accounts, trialAccountJSON{Kind: a.Kind.String(), GL: a.GL, Opening: a.Opening,
					Debits: a.Debits, Credits: a.Credits, Closing: a.Closing})
			}
			if asJSON {
				return json.NewEncoder(os.Stdout).Encode(out)
			}
			if !tb.Closed {
				fmt.Printf("%s is not closed yet: the figures may still change\n", date)
			}
			fmt.Printf("%-28s %-8s %16s %16s %16s %16s\n", "kind", "gl", "opening", "debits", "credits", "closing")
			for _, a := range out.Accounts {
				fmt.Printf("%-28s %-8s %16d %16d %16d %16d\n", a.Kind, a.GL, a.Opening, a.Debits, a.Credits, a.Closing)
			}
			fmt.Printf("%-28s %-8s %16s %16d %16d\n", "total", "", "", out.Debits, out.Credits)
			printGeneralLedger(os.Stdout, out.GeneralLedger)
			return nil
		})
}

// bookReportJSON is the loan book's report as `books report --json` prints it.
type bookReportJSON struct {
	Date         string           `json:"date"`
	Closed       bool             `json:"closed"`
	Lines        []reportLineJSON `json:"lines"`
	Assets       int64            `json:"assets"`
	Liabilities  int64            `json:"liabilities"`
	ResultDay    int64            `json:"resultDay"`
	ResultToDate int64            `json:"resultToDate"`
}

type reportLineJSON struct {
	Section string   `json:"section"`
	Line    string   `json:"line"`
	Kinds   []string `json:"kinds"`
	Day     int64    `json:"day"`
	Closing int64    `json:"closing"`
}

func bookReportCmd(o options) *cobra.Command {
	return dayCommand(o, "report",
		"Print the loan book's balance sheet and income lines at the end of a day",
		`Prints the loan book's balance sheet at the end of the day (assets: loans, accrued charges, less the
provision; liabilities: the clients' accounts, charges received in advance, the settlement
accounts net, and the result to date), its income lines (each income and expense account, the
day's and to date, expenses negative) and its off-balance lines (charges not accrued on balance,
principal written off), in tiyin. Assets equal liabilities when the books balance. Each line
names the account kinds it sums (docs/accounting.md, Reports). It reads, never writes.`,
		`{"date", "closed", "lines": [{"section", "line", "kinds", "day", "closing"}], "assets", "liabilities", "resultDay", "resultToDate"}`,
		func(ctx context.Context, in cli, day time.Time, date string, asJSON bool) error {
			tb, err := in.app.Operations.TrialBalance.Handle(ctx, day)
			if err != nil {
				return err
			}
			r := tb.Report
			out := bookReportJSON{Date: date, Closed: tb.Closed, Lines: []reportLineJSON{}, Assets: r.Assets,
				Liabilities: r.Liabilities, ResultDay: r.ResultDay, ResultToDate: r.ResultToDate}
			for _, l := range r.Lines {
				kinds := make([]string, 0, len(l.Kinds))
				for _, k := range l.Kinds {
					kinds = append(kinds, k.String())
				}
				out.Lines = append(out.Lines, reportLineJSON{Section: l.Section, Line: l.Name, Kinds: kinds, Day: l.Day, Closing: l.Closing})
			}
			if asJSON {
				return json.NewEncoder(os.Stdout).Encode(out)
			}
			if !tb.Closed {
				fmt.Printf("%s is not closed yet: the figures may still change\n", date)
			}
			fmt.Printf("%-12s %-24s %16s %16s\n", "section", "line", "the day", "closing")
			for _, l := range out.Lines {
				fmt.Printf("%-12s %-24s %16d %16d\n", l.Section, l.Line, l.Day, l.Closing)
			}
			fmt.Printf("assets %d, liabilities %d (the result to date %d included); the day's result %d\n",
				out.Assets, out.Liabilities, out.ResultToDate, out.ResultDay)
			return nil
		})
}

func journalCmd(o options) *cobra.Command {
	return dayCommand(o, "journal",
		"Print a day's journal, one line an entry, as CSV (or JSON with --json)",
		`Prints every entry of the day's postings (Asia/Tashkent), in posting order: the posting's id, kind,
reference and time, the account kind, the loan for a loan's account, its general ledger account,
and the debit or credit in tiyin. CSV with a header line by default, and on standard error
whether the bank's general ledger acknowledged the day; --json prints
{"date", "entries": [...], "generalLedger": {"acknowledged", "posts": [...]}}. It reads, never writes.`,
		`{"date", "entries": [{"posting", "kind", "ref", "at", "account", "loan", "gl", "debit", "credit"}], "generalLedger"}`,
		func(ctx context.Context, in cli, day time.Time, date string, asJSON bool) error {
			lines, err := in.app.Operations.Journal.Handle(ctx, day)
			if err != nil {
				return err
			}
			posts, err := in.app.Operations.Journal.GeneralLedger(ctx, day)
			if err != nil {
				return err
			}
			if asJSON {
				entries := make([]journal.Line, 0, len(lines))
				for _, l := range lines {
					entries = append(entries, journal.Of(l))
				}
				return json.NewEncoder(os.Stdout).Encode(struct {
					Date          string            `json:"date"`
					Entries       []journal.Line    `json:"entries"`
					GeneralLedger generalLedgerJSON `json:"generalLedger"`
				}{date, entries, generalLedger(posts)})
			}
			// The CSV on standard output stays the entries alone; what the general ledger
			// acknowledged goes to standard error.
			printGeneralLedger(os.Stderr, generalLedger(posts))
			return journal.WriteCSV(os.Stdout, lines)
		})
}
