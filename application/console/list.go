package console

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Console lists' page sizes.
const (
	// ListPageSize is a list page's rows unless asked otherwise; MaxListPageSize is the most.
	ListPageSize    = 50
	MaxListPageSize = 200
	// MaxExportRows bounds a list's CSV export; exportBatch is how many rows each read takes.
	MaxExportRows = 100_000
	exportBatch   = 1000
)

// ListPage is one page of a console list, and what its filter form offers.
type ListPage struct {
	Query ports.ListQuery
	Rows  []ports.ListRow
	// Next is the page's last row when another page follows, nil on the last page.
	Next     *ports.ListRow
	Statuses []string
	Partners []domain.Partner
}

// ListHandler reads the console's lists (applications, loans, transfers, repayment
// requests, card orders, cards), and exports them.
type ListHandler struct {
	UoW        ports.UnitOfWork
	BackOffice ports.BackOffice
	Partners   ports.PartnerRepository
	Audit      Audit
}

// listStatuses are the statuses each list filters by.
func listStatuses(kind string) []string {
	switch kind {
	case ports.ListApplications:
		return names(domain.ApplicationStatuses()...)
	case ports.ListLoans:
		return []string{"OPEN", "CLOSED", "WRITTEN_OFF"}
	case ports.ListTransfers:
		return names(domain.TransferNew, domain.TransferProcessing, domain.TransferSuccess, domain.TransferFailed, domain.TransferExpired)
	case ports.ListRepayments:
		return []string{"PAID", "NOT_PAID"}
	case ports.ListCardOrders:
		return names(domain.CardOrderNew, domain.CardOrderPending, domain.CardOrderInProgress, domain.CardOrderCompleted, domain.CardOrderCanceled)
	case ports.ListCards:
		return names(domain.CardActive, domain.CardBlocked, domain.CardUnverified, domain.CardDeleted, domain.CardClosed)
	}
	return nil
}

func names[S fmt.Stringer](statuses ...S) []string {
	out := make([]string, len(statuses))
	for i, s := range statuses {
		out[i] = s.String()
	}
	return out
}

// check refuses a query the list does not have: an unknown kind or status, amounts or dates
// out of order.
func checkList(q ports.ListQuery) error {
	statuses := listStatuses(q.Kind)
	switch {
	case statuses == nil:
		return fmt.Errorf("%w: no list of %q", ports.ErrBadList, q.Kind)
	case q.Status != "" && !slices.Contains(statuses, q.Status):
		return fmt.Errorf("%w: a %s's status is one of %v", ports.ErrBadList, q.Kind, statuses)
	case q.MinAmount < 0 || q.MaxAmount < 0 || (q.MaxAmount > 0 && q.MinAmount > q.MaxAmount):
		return fmt.Errorf("%w: the amounts are from the smaller to the larger", ports.ErrBadList)
	case !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To):
		return fmt.Errorf("%w: the dates are from the earlier to the later", ports.ErrBadList)
	case q.MinDaysOverdue < 0 || (q.MinDaysOverdue > 0 && q.Kind != ports.ListLoans):
		return fmt.Errorf("%w: days overdue are a loan's, 1 or more", ports.ErrBadList)
	case q.DueWithinDays != nil && (*q.DueWithinDays < 0 || *q.DueWithinDays > 31 || q.Kind != ports.ListLoans):
		return fmt.Errorf("%w: a loan falls due within 0 (today) to 31 days", ports.ErrBadList)
	}
	return nil
}

// partnerNamed sets q's partner to the one named partner (none: every partner), from the
// partners it reads and returns for the filter form.
func (h *ListHandler) partnerNamed(ctx context.Context, q *ports.ListQuery, partner string) ([]domain.Partner, error) {
	ps, err := h.Partners.List(ctx)
	if err != nil || partner == "" {
		return ps, err
	}
	for _, p := range ps {
		if p.Name == partner {
			q.PartnerID = p.ID
			return ps, nil
		}
	}
	return nil, fmt.Errorf("%w: no partner is named %q", ports.ErrBadList, partner)
}

// Handle returns the page q asks for, of the partner named partner ("": of every partner).
func (h *ListHandler) Handle(ctx context.Context, who Actor, q ports.ListQuery, partner string) (ListPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ListPage{}, err
	}
	if err := checkList(q); err != nil {
		return ListPage{}, err
	}
	partners, err := h.partnerNamed(ctx, &q, partner)
	if err != nil {
		return ListPage{}, err
	}
	q.Today = application.BusinessToday(h.Audit.Clock)
	if q.Limit <= 0 || q.Limit > MaxListPageSize {
		q.Limit = ListPageSize
	}
	want := q.Limit
	q.Limit++ // one more tells whether another page follows
	rows, err := h.BackOffice.List(ctx, q)
	if err != nil {
		return ListPage{}, err
	}
	q.Limit = want
	p := ListPage{Query: q, Rows: rows, Statuses: listStatuses(q.Kind), Partners: partners}
	if len(rows) > want {
		p.Rows = rows[:want]
		p.Next = &p.Rows[want-1]
	}
	return p, nil
}

// ExportRow is one row of a list's export: the row with its own columns (ports.ListQuery.Wide)
// and, for a loan, its position on its partner's clock, as the loan's page shows it.
type ExportRow struct {
	ports.ListRow
	Position domain.Position
}

// Export hands every row q selects, of the partner named partner ("": of every partner), from
// its first page and at most MaxExportRows, to emit, in the list's order, with the list's own
// columns; a loan's client's name and phones only to the roles that may reveal personal data
// (officers and up). The export is audited first: the list leaves the bank's systems.
func (h *ListHandler) Export(ctx context.Context, who Actor, q ports.ListQuery, partner string, emit func(ExportRow) error) error {
	if err := who.may(domain.RoleViewer); err != nil {
		return err
	}
	if err := checkList(q); err != nil {
		return err
	}
	if _, err := h.partnerNamed(ctx, &q, partner); err != nil {
		return err
	}
	q.Wide, q.Contacts = true, q.Kind == ports.ListLoans && who.Role.Allows(domain.RoleOfficer)
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Audit.record(ctx, who, "list.export", "list:"+q.Kind, describeList(q))
	})
	if err != nil {
		return err
	}
	q.After, q.Limit, q.Today = nil, exportBatch, application.BusinessToday(h.Audit.Clock)
	for sent := 0; sent < MaxExportRows; {
		q.Limit = min(exportBatch, MaxExportRows-sent)
		rows, err := h.BackOffice.List(ctx, q)
		if err != nil {
			return err
		}
		for _, r := range rows {
			out := ExportRow{ListRow: r}
			if r.Loan != nil {
				if out.Position, err = r.Loan.PositionAt(h.Audit.Clock.Now(r.PartnerID)); err != nil {
					return err
				}
			}
			if err := emit(out); err != nil {
				return err
			}
		}
		sent += len(rows)
		if len(rows) < q.Limit {
			return nil
		}
		q.After = &rows[len(rows)-1]
	}
	return nil
}

// describeList is the audit's account of the filter an export used.
func describeList(q ports.ListQuery) string {
	s := fmt.Sprintf("status=%q", q.Status)
	if q.PartnerID != uuid.Nil {
		s += " partner=" + q.PartnerID.String()
	}
	if !q.From.IsZero() {
		s += " from=" + q.From.Format("2006-01-02T15:04Z07:00")
	}
	if !q.To.IsZero() {
		s += " to=" + q.To.Format("2006-01-02T15:04Z07:00")
	}
	if q.MinAmount > 0 || q.MaxAmount > 0 {
		s += fmt.Sprintf(" amount=%d..%d", q.MinAmount, q.MaxAmount)
	}
	if q.MinDaysOverdue > 0 {
		s += fmt.Sprintf(" overdue>=%d", q.MinDaysOverdue)
	}
	if q.DueWithinDays != nil {
		s += fmt.Sprintf(" due<=%dd", *q.DueWithinDays)
	}
	if q.Contacts {
		s += " with the clients' names and phones"
	}
	return s + fmt.Sprintf(" sort=%s ascending=%t", q.Sort, q.Ascending)
}
