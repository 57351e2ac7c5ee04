package console

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The console's lists: applications, loans, transfers, repayment requests, card orders and
// cards, filtered by the query of a GET (so a filtered
// list is a link the dashboard's counts and an operator can share), paged by keyset, and
// exported as CSV.

// lists are the console's lists: each one's path (under /console/, and its CSV file's name)
// and title.
var lists = map[string]listKind{
	ports.ListApplications: {Path: "applications", Title: msg("Applications"), At: msg("Made"), Detail: msg("Stage"), Amount: true},
	ports.ListLoans:        {Path: "loans", Title: msg("Loans"), At: msg("Issued"), Detail: msg("Contract"), Amount: true, AmountSort: true, Overdue: true},
	ports.ListTransfers:    {Path: "transfers", Title: msg("Transfers"), At: msg("Made"), Detail: msg("Card"), Amount: true, AmountSort: true},
	ports.ListRepayments:   {Path: "repayments", Title: msg("Repayment requests"), At: msg("Checked"), Detail: msg("Contract"), Amount: true},
	ports.ListCardOrders:   {Path: "card-orders", Title: msg("Card orders"), At: msg("Ordered"), Detail: msg("Order description")},
	ports.ListCards:        {Path: "cards", Title: msg("Cards"), At: msg("Made"), Detail: msg("Card")},
}

// listKind is what a list's page says of its kind.
type listKind struct {
	Path, Title, At, Detail string
	Amount, AmountSort      bool // the kind has an amount to filter by; to sort by
	Overdue                 bool // the kind is overdue by days (loans)
}

// listQuery reads a list's filter, order and page from the URL's query. Dates are days in
// Tashkent, to included; amounts are so'm with at most two decimals.
func (c *Console) listQuery(r *http.Request, kind string) (ports.ListQuery, error) {
	v := r.URL.Query()
	q := ports.ListQuery{Kind: kind, Status: strings.TrimSpace(v.Get("status")), Sort: v.Get("sort"), Ascending: v.Get("order") == "asc"}
	var err error
	if q.From, err = day(v.Get("from"), "from"); err != nil {
		return q, err
	}
	if q.To, err = day(v.Get("to"), "to"); err != nil {
		return q, err
	}
	if !q.To.IsZero() {
		q.To = q.To.AddDate(0, 0, 1) // the whole day
	}
	if q.MinAmount, err = soum(v.Get("min"), "min"); err != nil {
		return q, err
	}
	if q.MaxAmount, err = soum(v.Get("max"), "max"); err != nil {
		return q, err
	}
	if d := strings.TrimSpace(v.Get("overdue")); d != "" {
		if q.MinDaysOverdue, err = strconv.Atoi(d); err != nil || q.MinDaysOverdue < 0 {
			return q, fmt.Errorf("%w: overdue is a number of days", errBadInput)
		}
	}
	if d := strings.TrimSpace(v.Get("due")); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil {
			return q, fmt.Errorf("%w: due is a number of days from today (0: today)", errBadInput)
		}
		q.DueWithinDays = &n
	}
	if l := v.Get("limit"); l != "" {
		if q.Limit, err = strconv.Atoi(l); err != nil || q.Limit < 1 || q.Limit > appconsole.MaxListPageSize {
			return q, fmt.Errorf("%w: limit is a page's rows, 1 to %d", errBadInput, appconsole.MaxListPageSize)
		}
	}
	if after := v.Get("after"); after != "" {
		if q.After, err = parseCursor(after); err != nil {
			return q, err
		}
	}
	return q, nil
}

// day reads a date in Tashkent; empty is none.
func day(s, field string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, s, domain.Tashkent)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s is a date, 2026-11-24", errBadInput, field)
	}
	return t, nil
}

// soum reads an amount in so'm (spaces as thousands separators, a point or a comma before at
// most two decimals) as tiyin; empty is none.
func soum(s, field string) (int64, error) {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", ",", ".").Replace(s)
	if s == "" {
		return 0, nil
	}
	whole, frac, _ := strings.Cut(s, ".")
	bad := fmt.Errorf("%w: %s is an amount in so'm, such as 1 500 000 or 1500000.50", errBadInput, field)
	if whole == "" || len(frac) > 2 || len(whole) > 13 {
		return 0, bad
	}
	w, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, bad
	}
	frac += strings.Repeat("0", 2-len(frac))
	f, err := strconv.ParseUint(frac, 10, 64)
	if err != nil {
		return 0, bad
	}
	return int64(w*100 + f), nil
}

// cursor is the keyset of a list row, for the next page's link: its time, amount and id.
func cursor(r ports.ListRow) string {
	return fmt.Sprintf("%d.%d.%s", r.At.UnixMicro(), r.Amount, r.ID)
}

func parseCursor(s string) (*ports.ListRow, error) {
	bad := fmt.Errorf("%w: after is a page's link, as the console writes it", errBadInput)
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, bad
	}
	micros, err1 := strconv.ParseInt(parts[0], 10, 64)
	amount, err2 := strconv.ParseInt(parts[1], 10, 64)
	id, err3 := uuid.Parse(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, bad
	}
	return &ports.ListRow{ID: id, Amount: amount, At: time.UnixMicro(micros).UTC()}, nil
}

// listView is a list page's data: the page, the filter as the form shows it, and the links.
type listView struct {
	appconsole.ListPage
	Kind string
	listKind
	Form    url.Values
	NextURL string
	CSVURL  string
}

func (c *Console) list(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := c.listQuery(r, kind)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		p, err := c.uc.Views.List.Handle(r.Context(), session(r).Operator, q, strings.TrimSpace(r.URL.Query().Get("partner")))
		if err != nil {
			c.fail(w, r, err)
			return
		}
		form := r.URL.Query()
		form.Del("after")
		l := lists[kind]
		v := listView{ListPage: p, Kind: kind, listKind: l, Form: form, CSVURL: "/console/" + l.Path + ".csv?" + form.Encode()}
		if p.Next != nil {
			next := url.Values{}
			for k, vs := range form {
				next[k] = vs
			}
			next.Set("after", cursor(*p.Next))
			v.NextURL = "/console/" + l.Path + "?" + next.Encode()
		}
		c.show(w, r, "list", l.Title, v)
	}
}

// listCSV exports the filtered list, every page of it, in one CSV file.
func (c *Console) listCSV(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := c.listQuery(r, kind)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		var bw *bufio.Writer
		contacts := kind == ports.ListLoans && session(r).Operator.Role.Allows(domain.RoleOfficer)
		start := func() { bw = startCSV(w, "tiyin-"+lists[kind].Path+".csv", csvHeader(kind, contacts)...) }
		err = c.uc.Views.List.Export(r.Context(), session(r).Operator, q, strings.TrimSpace(r.URL.Query().Get("partner")), func(row appconsole.ExportRow) error {
			if bw == nil { // the first row: the answer is a CSV file from here on
				start()
			}
			_, err := bw.WriteString(csvRow(csvFields(kind, contacts, row)...))
			return err
		})
		if bw == nil && err == nil { // no row: the header alone
			start()
		}
		if bw == nil {
			c.fail(w, r, err)
			return
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			c.log.Warn("console: list CSV cut short", zap.String("list", kind), zap.Error(err))
		}
	}
}

// A list's CSV has the columns every list has, then its own. Amounts are whole tiyin (the
// columns' names end in _tiyin), plain integers a spreadsheet reads as numbers, as in every
// export of the console; times are Tashkent's.
var listColumns = []string{"id", "partner", "status", "detail", "amount_tiyin", "at_tashkent"}

// csvHeader is the header of kind's list; contacts adds a loan's client's name and phones.
func csvHeader(kind string, contacts bool) []string {
	h := slices.Clone(listColumns)
	switch kind {
	case ports.ListLoans:
		h = append(h, "days_overdue", "principal_outstanding_tiyin", "overdue_principal_tiyin", "overdue_interest_tiyin",
			"penalty_tiyin", "overdue_total_tiyin", "payoff_tiyin")
		if contacts {
			h = append(h, "client_name", "phone", "backup_phone")
		}
	case ports.ListRepayments:
		h = append(h, "paid_at_tashkent", "payment_type", "channel", "network", "receipt", "principal_tiyin", "interest_tiyin",
			"penalty_tiyin", "recovery")
	}
	return h
}

// csvFields is row's line of kind's list, in csvHeader's order.
func csvFields(kind string, contacts bool, row appconsole.ExportRow) []string {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := []string{row.ID.String(), row.Partner, row.Status, row.Detail, n(row.Amount), when(row.At)}
	switch kind {
	case ports.ListLoans:
		p := row.Position
		f = append(f, strconv.Itoa(row.DaysOverdue), n(row.Outstanding), n(p.OverduePrincipal), n(p.OverdueInterest), n(p.Penalty),
			n(p.Fine()), n(p.Payoff()))
		if contacts {
			c := row.Contact
			if c == nil {
				c = &ports.ListContact{}
			}
			f = append(f, c.Name, c.Phone, c.BackupPhone)
		}
	case ports.ListRepayments:
		if p := row.Payment; p != nil {
			network := ""
			if p.Channel == domain.ChannelCard {
				network = p.Network.String()
			}
			f = append(f, when(p.At), p.Type.String(), p.Channel.String(), network, p.DebitID, n(p.Principal), n(p.Interest),
				n(p.Penalty), strconv.FormatBool(p.Recovery))
		} else {
			f = append(f, "", "", "", "", "", "", "", "", "")
		}
	}
	return f
}

// startCSV begins a CSV answer: its headers, a byte order mark (so Excel reads UTF-8) and the
// header row.
func startCSV(w http.ResponseWriter, filename string, header ...string) *bufio.Writer {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	bw := bufio.NewWriter(w)
	_, _ = bw.WriteString("\ufeff") // a write error shows at Flush
	_, _ = bw.WriteString(csvRow(header...))
	return bw
}
