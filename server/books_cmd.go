package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/adapters/journal"
)

func booksCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "books", Short: "Close the books on an accrual basis and read a day's trial balance and journal"}
	cmd.AddCommand(booksCloseCmd(o), trialBalanceCmd(o), journalCmd(o))
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

func booksCloseCmd(o options) *cobra.Command {
	var date string
	c := &cobra.Command{
		Use:   "close",
		Short: "Close every day not yet closed up to --date: accruals, overdue principal, non-accrual and provisions (accounting.md)",
		Long: `Closes the books of every loan for each day after its last close, up to --date (Asia/Tashkent),
and records the days closed. In the sandbox each partner's loans close on that partner's clock: a
day after a partner's today is closed only up to its today. It is resumable: a close stopped part
way leaves the loans it closed closed, and the next run closes the rest. A day closed already
posts nothing. It prints, for each clock, the day closed through, the loans visited and the
postings made.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := booksDate(date)
			if err != nil {
				return err
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				done, err := in.app.Operations.CloseBooks.Close(ctx, day)
				if err != nil {
					return err
				}
				if len(done) == 0 {
					fmt.Printf("%s: closed already\n", date)
				}
				for _, s := range done {
					scope := s.Scope
					if scope == "" {
						scope = "system clock"
					}
					fmt.Printf("%s: closed through %s, %d loans, %d postings, %s\n", scope, s.Through.Format(time.DateOnly),
						s.Loans, s.Postings, s.Duration.Round(time.Millisecond))
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&date, "date", "", "the last business day to close, YYYY-MM-DD (Asia/Tashkent)")
	_ = c.MarkFlagRequired("date")
	return c
}

// trialBalanceJSON is the trial balance's JSON (docs/accounting.md, Trial balance).
type trialBalanceJSON struct {
	Date     string             `json:"date"`
	Accounts []trialAccountJSON `json:"accounts"`
	Debits   int64              `json:"debits"`
	Credits  int64              `json:"credits"`
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
	var date string
	var asJSON bool
	c := &cobra.Command{
		Use:   "trial-balance",
		Short: "Print a day's trial balance: each account kind's general ledger account, opening, debits, credits and closing",
		Long: `Prints each account kind with its general ledger account (TIYIN_BOOKS_FILE), its opening balance,
the day's debits and credits and its closing balance (balances are debits minus credits, in
tiyin), and the day's total debits and credits, which are equal. Off-balance memo accounts are
listed too; each pair nets to zero. It reads, never writes.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := booksDate(date)
			if err != nil {
				return err
			}
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				tb, err := in.app.Operations.TrialBalance.Handle(ctx, day)
				if err != nil {
					return err
				}
				out := trialBalanceJSON{Date: date, Accounts: []trialAccountJSON{}, Debits: tb.Debits, Credits: tb.Credits}
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
				return nil
			})
		},
	}
	c.Flags().StringVar(&date, "date", "", "the business day, YYYY-MM-DD (Asia/Tashkent)")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"date", "accounts": [{"kind", "gl", "opening", "debits", "credits", "closing"}], "debits", "credits"}`)
	_ = c.MarkFlagRequired("date")
	return c
}

func journalCmd(o options) *cobra.Command {
	var date string
	var asJSON bool
	c := &cobra.Command{
		Use:   "journal",
		Short: "Print a day's journal, one line an entry, as CSV (or JSON with --json)",
		Long: `Prints every entry of the day's postings (Asia/Tashkent), in posting order: the posting's id, kind,
reference and time, the account kind, the loan for a loan's account, its general ledger account,
and the debit or credit in tiyin. CSV with a header line by default; --json prints
{"date", "entries": [...]}. It reads, never writes.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			day, err := booksDate(date)
			if err != nil {
				return err
			}
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				lines, err := in.app.Operations.Journal.Handle(ctx, day)
				if err != nil {
					return err
				}
				if asJSON {
					return journal.WriteJSON(os.Stdout, date, lines)
				}
				return journal.WriteCSV(os.Stdout, lines)
			})
		},
	}
	c.Flags().StringVar(&date, "date", "", "the business day, YYYY-MM-DD (Asia/Tashkent)")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"date", "entries": [{"posting", "kind", "ref", "at", "account", "loan", "gl", "debit", "credit"}]}`)
	_ = c.MarkFlagRequired("date")
	return c
}
