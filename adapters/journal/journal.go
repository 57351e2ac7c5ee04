// Package journal renders a day's journal of the books (docs/accounting.md, "Journal") as CSV
// and as JSON. The command (tiyin books journal) and the console's downloads both write it
// through here, so the two give the same file.
package journal

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// Line is a journal line's JSON.
type Line struct {
	Posting string `json:"posting"`
	Kind    string `json:"kind"`
	Ref     string `json:"ref"`
	At      string `json:"at"`
	Account string `json:"account"`
	Loan    string `json:"loan,omitempty"`
	GL      string `json:"gl"`
	Debit   int64  `json:"debit"`
	Credit  int64  `json:"credit"`
}

// Header is the CSV's first line: a Line's fields in order.
var Header = []string{"posting", "kind", "ref", "at", "account", "loan", "gl", "debit", "credit"}

// Of is the entry's line: times in Tashkent, the loan for a loan's account.
func Of(e application.JournalEntry) Line {
	l := Line{Posting: e.PostingID.String(), Kind: e.Kind, Ref: e.Ref.String(), At: e.At.In(domain.Tashkent).Format(time.RFC3339Nano),
		Account: e.Account.Kind.String(), GL: e.GL, Debit: e.Debit, Credit: e.Credit}
	if e.Account.LoanID != uuid.Nil {
		l.Loan = e.Account.LoanID.String()
	}
	return l
}

// WriteJSON writes {"date", "entries": [...]} and a new line; date is YYYY-MM-DD.
func WriteJSON(w io.Writer, date string, entries []application.JournalEntry) error {
	lines := make([]Line, 0, len(entries))
	for _, e := range entries {
		lines = append(lines, Of(e))
	}
	return json.NewEncoder(w).Encode(struct {
		Date    string `json:"date"`
		Entries []Line `json:"entries"`
	}{date, lines})
}

// WriteCSV writes the header line, then an entry a line.
func WriteCSV(w io.Writer, entries []application.JournalEntry) error {
	c := csv.NewWriter(w)
	_ = c.Write(Header) // a write error shows at Flush
	for _, e := range entries {
		l := Of(e)
		_ = c.Write([]string{l.Posting, l.Kind, l.Ref, l.At, l.Account, l.Loan, l.GL, strconv.FormatInt(l.Debit, 10),
			strconv.FormatInt(l.Credit, 10)})
	}
	c.Flush()
	return c.Error()
}
