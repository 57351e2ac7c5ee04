package console

import (
	"net/http"
	"strconv"

	"go.uber.org/zap"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// agingLabels name the aging buckets, in ports.Aging… order.
var agingLabels = [ports.AgingBuckets]string{msg("current"), msg("1–30 days"), msg("31–60 days"), msg("61–90 days"), msg("over 90 days")}

func (c *Console) reports(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Views.Reports.Portfolio(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	d, err := c.daily(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "reports", msg("Reports"), struct {
		Portfolio appconsole.Portfolio
		Aging     [ports.AgingBuckets]string
		Daily     appconsole.DailyReport
		Chart     chart
		Query     string
	}{p, agingLabels, d, dailyChart(d.Days), r.URL.RawQuery})
}

// daily reads the daily report of the period the query names (from, to: days in Tashkent,
// both included; none: the last 30 days).
func (c *Console) daily(r *http.Request) (appconsole.DailyReport, error) {
	from, err := day(r.URL.Query().Get("from"), "from")
	if err != nil {
		return appconsole.DailyReport{}, err
	}
	to, err := day(r.URL.Query().Get("to"), "to")
	if err != nil {
		return appconsole.DailyReport{}, err
	}
	if !from.IsZero() {
		from = domain.BusinessDate(from)
	}
	if !to.IsZero() {
		to = domain.BusinessDate(to)
	}
	return c.uc.Views.Reports.Daily(r.Context(), session(r).Operator, from, to)
}

// dailyCSV exports the daily report: a day a row, then the total.
func (c *Console) dailyCSV(w http.ResponseWriter, r *http.Request) {
	d, err := c.daily(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	bw := startCSV(w, "tiyin-daily-"+d.From.Format("2006-01-02")+"-"+d.To.Format("2006-01-02")+".csv", "business_date",
		"loans_issued", "issued_tiyin", "repayments", "repaid_tiyin", "transfers", "transferred_tiyin")
	total := d.Total
	for _, row := range append(d.Days, total) {
		date := "total"
		if !row.Day.IsZero() {
			date = row.Day.Format("2006-01-02")
		}
		_, _ = bw.WriteString(csvRow(date, strconv.Itoa(row.IssuedN), strconv.FormatInt(row.Issued, 10), strconv.Itoa(row.RepaidN),
			strconv.FormatInt(row.Repaid, 10), strconv.Itoa(row.TransferredN), strconv.FormatInt(row.Transferred, 10)))
	}
	if err := bw.Flush(); err != nil {
		c.log.Warn("console: daily CSV cut short", zap.Error(err))
	}
}

// portfolioCSV exports the portfolio table: a partner a row, then the total.
func (c *Console) portfolioCSV(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Views.Reports.Portfolio(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	header := []string{"business_date", "partner", "open", "closed", "outstanding_tiyin", "written_off", "written_off_tiyin"}
	for _, l := range agingLabels {
		header = append(header, "loans "+l, "principal_tiyin "+l)
	}
	bw := startCSV(w, "tiyin-portfolio-"+p.Today.Format("2006-01-02")+".csv", header...)
	for _, row := range append(p.Rows, p.Total) {
		fields := []string{p.Today.Format("2006-01-02"), row.Partner, strconv.Itoa(row.Open), strconv.Itoa(row.Closed),
			strconv.FormatInt(row.Outstanding, 10), strconv.Itoa(row.WrittenOff), strconv.FormatInt(row.WrittenOffPrincipal, 10)}
		for b := range ports.AgingBuckets {
			fields = append(fields, strconv.Itoa(row.Count[b]), strconv.FormatInt(row.Principal[b], 10))
		}
		_, _ = bw.WriteString(csvRow(fields...))
	}
	if err := bw.Flush(); err != nil {
		c.log.Warn("console: portfolio CSV cut short", zap.Error(err))
	}
}
