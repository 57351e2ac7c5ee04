package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The collectors' pages (docs/console.md, "Collections"): the queues by bucket of days
// overdue, a loan's work (its collector, contact log, promises to pay and reminders), and the
// collections report with the history of portfolio at risk.

// collectionsRoutes names the collections' pages and actions.
func (c *Console) collectionsRoutes() {
	m := c.mux
	m.HandleFunc("GET /console/collections", c.authed(c.queue))
	m.HandleFunc("GET /console/collections/report", c.authed(c.collectionsReport))
	m.HandleFunc("GET /console/collections/loans/{id}", c.authed(c.loanWork))
	m.HandleFunc("POST /console/collections/loans/{id}/assign", c.authed(c.assignCollector))
	m.HandleFunc("POST /console/collections/loans/{id}/contact", c.authed(c.logContact))
	m.HandleFunc("POST /console/collections/loans/{id}/promise", c.authed(c.promiseToPay))
	c.bulkRoutes()
}

// queueView is the queue page's data: the page, and the links of its tabs and next page.
type queueView struct {
	appconsole.QueuePage
	Tabs    []queueTab
	Views   []queueTab
	NextURL string
}

// queueTab is a link that switches bucket or view, and whether it is the one shown.
type queueTab struct {
	Label, URL string
	Arg        string
	On         bool
}

// queueURL is the address of the queue with filter f.
func queueURL(f appconsole.QueueFilter, after string) string {
	v := url.Values{}
	if f.Bucket >= 0 {
		v.Set("bucket", strconv.Itoa(f.Bucket))
	}
	switch {
	case f.Mine:
		v.Set("view", "mine")
	case f.Unassigned:
		v.Set("view", "unassigned")
	case f.Flagged:
		v.Set("view", "flagged")
	}
	if after != "" {
		v.Set("after", after)
	}
	if len(v) == 0 {
		return "/console/collections"
	}
	return "/console/collections?" + v.Encode()
}

// queueCursor writes a queue row as the next page's after; parseQueueCursor reads it back.
func queueCursor(r ports.QueueRow) string {
	return r.Due.Format(time.DateOnly) + "_" + r.LoanID.String()
}

func parseQueueCursor(s string) (*ports.QueueRow, error) {
	d, id, ok := strings.Cut(s, "_")
	due, err1 := time.Parse(time.DateOnly, d)
	loan, err2 := uuid.Parse(id)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: after is a page's link, as the console writes it", errBadInput)
	}
	return &ports.QueueRow{Due: due, LoanID: loan}, nil
}

func (c *Console) queue(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := appconsole.QueueFilter{Bucket: -1}
	if b := q.Get("bucket"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil {
			c.fail(w, r, fmt.Errorf("%w: bucket %q", errBadInput, b))
			return
		}
		f.Bucket = n
	}
	switch q.Get("view") {
	case "":
	case "mine":
		f.Mine = true
	case "unassigned":
		f.Unassigned = true
	case "flagged":
		f.Flagged = true
	default:
		c.fail(w, r, fmt.Errorf("%w: view %q", errBadInput, q.Get("view")))
		return
	}
	if a := q.Get("after"); a != "" {
		row, err := parseQueueCursor(a)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		f.After = row
	}
	p, err := c.uc.Collections.Queue.Handle(r.Context(), session(r).Operator, f)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	v := queueView{QueuePage: p}
	all := f
	all.Bucket, all.After = -1, nil
	v.Tabs = append(v.Tabs, queueTab{Label: msg("All overdue"), URL: queueURL(all, ""), On: f.Bucket < 0})
	for i, b := range p.Buckets {
		tab := f
		tab.Bucket, tab.After = i, nil
		v.Tabs = append(v.Tabs, queueTab{Label: msg("{A} days"), Arg: b.String(), URL: queueURL(tab, ""), On: f.Bucket == i})
	}
	for _, view := range []struct {
		label string
		set   func(*appconsole.QueueFilter)
		on    bool
	}{
		{msg("Everyone's"), func(*appconsole.QueueFilter) {}, !f.Mine && !f.Unassigned && !f.Flagged},
		{msg("My queue"), func(x *appconsole.QueueFilter) { x.Mine = true }, f.Mine},
		{msg("Nobody's"), func(x *appconsole.QueueFilter) { x.Unassigned = true }, f.Unassigned},
		{msg("Broken promises"), func(x *appconsole.QueueFilter) { x.Flagged = true }, f.Flagged},
	} {
		x := appconsole.QueueFilter{Bucket: f.Bucket}
		view.set(&x)
		v.Views = append(v.Views, queueTab{Label: view.label, URL: queueURL(x, ""), On: view.on})
	}
	if p.Next != nil {
		v.NextURL = queueURL(f, queueCursor(*p.Next))
	}
	c.show(w, r, "collections", msg("Collections"), v)
}

// loanWorkView is a loan's collections page: its work, and the choices of its forms.
type loanWorkView struct {
	appconsole.LoanWork
	LoanID   uuid.UUID
	Channels []domain.ContactChannel
	Outcomes []domain.ContactOutcome
}

func (c *Console) loanWork(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Collections.LoanWork.Handle(r.Context(), session(r).Operator, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "collections-loan", msg("Collections"), loanWorkView{LoanWork: p, LoanID: id, Channels: domain.ContactChannels(),
		Outcomes: domain.ContactOutcomes()})
}

func (c *Console) assignCollector(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	collector := uuid.Nil
	if v := r.PostFormValue("collector"); v != "" {
		if collector, err = uuid.Parse(v); err != nil {
			c.fail(w, r, fmt.Errorf("%w: collector", errBadInput))
			return
		}
	}
	if err := c.uc.Collections.Assign.Handle(r.Context(), session(r).Operator, id, collector); err != nil {
		c.fail(w, r, collectionsError(err))
		return
	}
	done(w, r, "/console/collections/loans/"+id.String(), "assigned")
}

func (c *Console) logContact(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	err = c.uc.Collections.LogContact.Handle(r.Context(), session(r).Operator, appconsole.LogContact{Loan: id,
		Channel: r.PostFormValue("channel"), Outcome: r.PostFormValue("outcome"), Note: r.PostFormValue("note")})
	if err != nil {
		c.fail(w, r, collectionsError(err))
		return
	}
	done(w, r, "/console/collections/loans/"+id.String(), "contact")
}

func (c *Console) promiseToPay(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	amount, err := parseSum(r.PostFormValue("amount"))
	if err != nil {
		c.fail(w, r, err)
		return
	}
	due, err := time.Parse(time.DateOnly, r.PostFormValue("due"))
	if err != nil {
		c.fail(w, r, fmt.Errorf("%w: the date is yyyy-mm-dd", errBadInput))
		return
	}
	_, err = c.uc.Collections.PromiseToPay.Handle(r.Context(), session(r).Operator, appconsole.MakePromiseToPay{Loan: id, Amount: amount, Due: due})
	if err != nil {
		c.fail(w, r, collectionsError(err))
		return
	}
	done(w, r, "/console/collections/loans/"+id.String(), "promise")
}

// parseSum reads so'm with at most two decimals ("1 500.50") as tiyin.
func parseSum(s string) (int64, error) {
	s = strings.NewReplacer(" ", "", "\u00a0", "", ",", ".").Replace(strings.TrimSpace(s))
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("%w: an amount in so'm has at most two decimals", errBadInput)
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n <= 0 || len(whole) > 15 {
		return 0, fmt.Errorf("%w: an amount in so'm, above zero", errBadInput)
	}
	return n, nil
}

// collectionsReportView is the report page's data and its PAR chart.
type collectionsReportView struct {
	appconsole.CollectionsReportPage
	Chart chart
}

func (c *Console) collectionsReport(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Collections.Report.Handle(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "collections-report", msg("Collections report"), collectionsReportView{CollectionsReportPage: p, Chart: parChart(p.PAR)})
}

// parSeries are the PAR chart's bars of a day: the share of principal outstanding overdue
// past 1, 30 and 90 days, in hundredths of a percent.
var parSeries = []struct {
	name, fill string
	share      func(ports.PARSnapshot) int64
}{
	{msg("PAR 1"), "#b06d00", func(s ports.PARSnapshot) int64 { return share(s.PAR1, s.Principal) }},
	{msg("PAR 30"), "#c0392b", func(s ports.PARSnapshot) int64 { return share(s.PAR30, s.Principal) }},
	{msg("PAR 90"), "#6d1a13", func(s ports.PARSnapshot) int64 { return share(s.PAR90, s.Principal) }},
}

// share is part of whole in hundredths of a percent.
func share(part, whole int64) int64 {
	if whole <= 0 {
		return 0
	}
	return part * 10000 / whole
}

// parChart draws the daily PAR snapshots as the daily report's chart does its money: three bars a
// day, the highest share at the top, a date under every seventh day.
func parChart(days []ports.PARSnapshot) chart {
	c := chart{Width: chartWidth, Height: chartHeight, Base: chartBase}
	var top int64
	for _, d := range days {
		for _, s := range parSeries {
			top = max(top, s.share(d))
		}
	}
	c.Max = fmt.Sprintf("%d.%02d %%", top/100, top%100)
	for i, s := range parSeries {
		c.Legend = append(c.Legend, chartLabel{X: float64(10 + i*200), Y: 16, Text: s.name, Fill: s.fill})
	}
	if len(days) == 0 {
		return c
	}
	slot := float64(chartWidth-20) / float64(len(days))
	w := slot / float64(len(parSeries)+1)
	for i, d := range days {
		x := 10 + float64(i)*slot
		for j, s := range parSeries {
			h := 0.0
			if top > 0 {
				h = float64(chartBase-chartTop) * float64(s.share(d)) / float64(top)
			}
			v := s.share(d)
			c.Bars = append(c.Bars, chartBar{X: x + float64(j)*w, Y: float64(chartBase) - h, W: w, H: h, Fill: s.fill,
				Day: d.Day.Format("2006-01-02"), Series: s.name, Amount: fmt.Sprintf("%d.%02d %%", v/100, v%100)})
		}
		if i%7 == 0 {
			c.Labels = append(c.Labels, chartLabel{X: x, Y: chartBase + 16, Text: d.Day.Format("01-02")})
		}
	}
	return c
}

// The collections actions' confirmations, beside the console's others.
func init() {
	messages["assigned"] = msg("The loan's collector is changed.")
	messages["contact"] = msg("The contact is logged.")
	messages["promise"] = msg("The promise to pay is recorded: payments from now on count towards it.")
}

// refusedInput shows a collections refusal of the domain as a form's error (400) with its own
// text.
type refusedInput struct{ err error }

func (e refusedInput) Error() string        { return e.err.Error() }
func (e refusedInput) Unwrap() error        { return e.err }
func (e refusedInput) Is(target error) bool { return target == errBadInput }

// collectionsError is err, a collections refusal marked as the form's error.
func collectionsError(err error) error {
	for _, r := range []error{domain.ErrPromiseToPay, domain.ErrContactNote, domain.ErrCollector} {
		if errors.Is(err, r) {
			return refusedInput{err}
		}
	}
	return err
}
