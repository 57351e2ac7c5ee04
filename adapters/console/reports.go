package console

import (
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/ports"
)

// agingLabels name the aging buckets, in ports.Aging… order.
var agingLabels = [ports.AgingBuckets]string{"current", "1–30 days", "31–60 days", "61–90 days", "over 90 days"}

func (c *Console) reports(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Views.Reports.Portfolio(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "reports", "Reports", struct {
		Portfolio any
		Aging     [ports.AgingBuckets]string
	}{p, agingLabels})
}

// portfolioCSV exports the portfolio table: a partner a row, then the total.
func (c *Console) portfolioCSV(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Views.Reports.Portfolio(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	header := []string{"business_date", "partner", "open", "closed", "outstanding_tiyin"}
	for _, l := range agingLabels {
		header = append(header, "loans "+l, "principal_tiyin "+l)
	}
	bw := startCSV(w, "tiyin-portfolio-"+p.Today.Format("2006-01-02")+".csv", header...)
	for _, row := range append(p.Rows, p.Total) {
		fields := []string{p.Today.Format("2006-01-02"), row.Partner, strconv.Itoa(row.Open), strconv.Itoa(row.Closed),
			strconv.FormatInt(row.Outstanding, 10)}
		for b := range ports.AgingBuckets {
			fields = append(fields, strconv.Itoa(row.Count[b]), strconv.FormatInt(row.Principal[b], 10))
		}
		_, _ = bw.WriteString(csvRow(fields...))
	}
	if err := bw.Flush(); err != nil {
		c.log.Warn("console: portfolio CSV cut short", zap.Error(err))
	}
}
