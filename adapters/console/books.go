package console

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/journal"
	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// books shows the Books page: the closes, the trial balance of the day the query names (day:
// YYYY-MM-DD; none: the latest day closed) and the provisions by class.
func (c *Console) books(w http.ResponseWriter, r *http.Request) {
	d, err := day(r.URL.Query().Get("day"), "day")
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Views.Books.Handle(r.Context(), session(r).Operator, businessDate(d))
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "books", msg("Books"), booksView{BooksPage: p, Report: reportRows(p.TrialBalance.Report)})
}

// booksView is the Books page with the loan book's report laid out for reading.
type booksView struct {
	appconsole.BooksPage
	Report []reportRow
}

// reportRow is a line of the loan book's report under its label; a section's first line carries
// the section's label.
type reportRow struct {
	domain.ReportLine
	Section, Label string
}

// reportLabels name the report's sections and lines.
var reportLabels = map[string]string{
	domain.SectionAssets: msg("Assets"), domain.SectionLiabilities: msg("Liabilities"),
	domain.SectionIncome: msg("Income and expenses"), domain.SectionOffBalance: msg("Off balance"),
	"LOANS": msg("Loans to clients, principal"), "ACCRUED_CHARGES": msg("Accrued charges receivable"),
	"PROVISION": msg("Less the provision"), "WRITTEN_OFF_CASH_BASIS": msg("Written off before the books opened"),
	"CLIENT_ACCOUNTS": msg("Clients' accounts"), "CHARGES_IN_ADVANCE": msg("Charges received in advance"),
	"SETTLEMENT_NET": msg("Settlement accounts, net"), "INTEREST_INCOME": msg("Interest income"),
	"SERVICE_INCOME": msg("Service fee income"), "PENALTY_INCOME": msg("Penalty income"), "RECOVERY_INCOME": msg("Recoveries"),
	"PROVISION_EXPENSE": msg("Provision expense"), "WRITE_OFF_EXPENSE": msg("Write-off expense"),
	"NONACCRUED_CHARGES": msg("Charges not accrued on balance"), "WRITTEN_OFF_PRINCIPAL": msg("Principal written off"),
}

// reportRows lays the report's lines out under their labels.
func reportRows(r domain.BookReport) []reportRow {
	out := make([]reportRow, 0, len(r.Lines))
	for i, l := range r.Lines {
		row := reportRow{ReportLine: l, Label: reportLabels[l.Name]}
		if i == 0 || r.Lines[i-1].Section != l.Section {
			row.Section = reportLabels[l.Section]
		}
		out = append(out, row)
	}
	return out
}

// businessDate is the business date of a day the query named; zero stays zero.
func businessDate(d time.Time) time.Time {
	if d.IsZero() {
		return d
	}
	return domain.BusinessDate(d)
}

// journalDownload sends the day's journal (day: YYYY-MM-DD, required) as tiyin books journal
// prints it: CSV, or JSON with asJSON.
func (c *Console) journalDownload(asJSON bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := day(r.URL.Query().Get("day"), "day")
		if err == nil && d.IsZero() {
			err = fmt.Errorf("%w: day is a date, 2026-11-24", errBadInput)
		}
		if err != nil {
			c.fail(w, r, err)
			return
		}
		date := d.Format(time.DateOnly)
		lines, err := c.uc.Views.Books.Journal(r.Context(), session(r).Operator, domain.BusinessDate(d))
		if err != nil {
			c.fail(w, r, err)
			return
		}
		write, ext, kind := journal.WriteCSV, "csv", "text/csv; charset=utf-8"
		if asJSON {
			write, ext, kind = func(w io.Writer, lines []application.JournalEntry) error { return journal.WriteJSON(w, date, lines) },
				"json", "application/json"
		}
		w.Header().Set("Content-Type", kind)
		w.Header().Set("Content-Disposition", `attachment; filename="tiyin-journal-`+date+`.`+ext+`"`)
		if err := write(w, lines); err != nil {
			c.log.Warn("console: journal download cut short", zap.Error(err))
		}
	}
}
