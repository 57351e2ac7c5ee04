package console

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/journal"
	"github.com/tiyin/tiyin/application"
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
	c.show(w, r, "books", msg("Books"), p)
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
