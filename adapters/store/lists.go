package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// listSpec is a console list: its table and the SQL of what its rows and filters read. Every
// list pages by keyset on (its sort key, id), so a page deep in a million rows costs what the
// first does; the indexes that carry them are in migration 00015.
type listSpec struct {
	table  string
	at     string // the column of when an object was made
	amount string // the amount column, nullable where amountNullable; "" where the kind has none
	// amountNullable: some rows have no amount yet, so the list cannot be sorted by it.
	amountNullable bool
	status         string // the row's status, as SQL
	detail         string
	due            string // the first unpaid due date (loans), as SQL; "" for none
	// whereStatus filters by status; it refuses a status the kind does not have.
	whereStatus func(g *gorm.DB, status string) (*gorm.DB, error)
}

// byStatus filters by the status column.
func byStatus(g *gorm.DB, s string) (*gorm.DB, error) { return g.Where("o.status = ?", s), nil }

// byNull filters by whether column is NULL: the status named notNull when it is not, the
// status named null when it is.
func byNull(kind, column, notNull, null string) func(g *gorm.DB, s string) (*gorm.DB, error) {
	return func(g *gorm.DB, s string) (*gorm.DB, error) {
		switch s {
		case notNull:
			return g.Where("o." + column + " IS NOT NULL"), nil
		case null:
			return g.Where("o." + column + " IS NULL"), nil
		}
		return nil, fmt.Errorf("%w: a %s is %s or %s, not %q", ports.ErrBadList, kind, notNull, null, s)
	}
}

// byLoanStatus filters loans by status: OPEN, CLOSED or WRITTEN_OFF (a loan written off and then
// recovered in full is CLOSED).
func byLoanStatus(g *gorm.DB, s string) (*gorm.DB, error) {
	switch s {
	case "OPEN":
		return g.Where("o.closed_at IS NULL AND o.written_off_at IS NULL"), nil
	case "CLOSED":
		return g.Where("o.closed_at IS NOT NULL"), nil
	case "WRITTEN_OFF":
		return g.Where("o.closed_at IS NULL AND o.written_off_at IS NOT NULL"), nil
	}
	return nil, fmt.Errorf("%w: a loan is OPEN, CLOSED or WRITTEN_OFF, not %q", ports.ErrBadList, s)
}

var listSpecs = map[string]listSpec{
	ports.ListApplications: {table: "applications", at: "created_at", amount: "offer_amount", amountNullable: true,
		status: "o.status", detail: "o.task_name || '/' || o.task_status", whereStatus: byStatus},
	ports.ListLoans: {table: "loans", at: "issued_at", amount: "amount",
		status: "CASE WHEN o.closed_at IS NOT NULL THEN 'CLOSED' WHEN o.written_off_at IS NOT NULL THEN 'WRITTEN_OFF' ELSE 'OPEN' END",
		detail: "COALESCE(o.contract_number, '')",
		due:    "o.first_unpaid_due", whereStatus: byLoanStatus},
	ports.ListTransfers: {table: "transfers", at: "created_at", amount: "amount",
		status: "o.status", detail: "o.network || ' ' || o.masked_pan", whereStatus: byStatus},
	ports.ListRepayments: {table: "repayments", at: "checked_at", amount: "amount", amountNullable: true,
		status: "CASE WHEN o.paid_at IS NULL THEN 'NOT_PAID' ELSE 'PAID' END", detail: "o.contract_number",
		whereStatus: byNull("repayment request", "paid_at", "PAID", "NOT_PAID")},
	ports.ListCardOrders: {table: "card_orders", at: "created_at", status: "o.status", detail: "o.description", whereStatus: byStatus},
	ports.ListCards:      {table: "cards", at: "created_at", status: "o.status", detail: "o.network || ' ' || o.masked_pan", whereStatus: byStatus},
}

type listRow struct {
	ID, PartnerID uuid.UUID
	Partner       string
	Status        string
	Detail        string
	Amount        int64
	At            time.Time
	Due           *time.Time
}

// List implements ports.BackOffice: one statement, newest (or largest) first unless asked
// otherwise, the page after q.After.
func (b *BackOffice) List(ctx context.Context, q ports.ListQuery) ([]ports.ListRow, error) {
	spec, ok := listSpecs[q.Kind]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ports.ErrBadList, q.Kind)
	}
	key := "o." + spec.at
	switch q.Sort {
	case "", ports.SortTime:
	case ports.SortAmount:
		if spec.amount == "" || spec.amountNullable {
			return nil, fmt.Errorf("%w: a list of %ss is not sorted by amount (not every one has an amount yet)", ports.ErrBadList, q.Kind)
		}
		key = "o." + spec.amount
	default:
		return nil, fmt.Errorf("%w: sort by %q", ports.ErrBadList, q.Sort)
	}
	if spec.amount == "" && (q.MinAmount > 0 || q.MaxAmount > 0) {
		return nil, fmt.Errorf("%w: a %s has no amount", ports.ErrBadList, q.Kind)
	}
	if spec.due == "" && q.MinDaysOverdue > 0 {
		return nil, fmt.Errorf("%w: only loans are overdue", ports.ErrBadList)
	}
	g := b.rows(ctx, spec)
	if q.Status != "" {
		var err error
		if g, err = spec.whereStatus(g, q.Status); err != nil {
			return nil, err
		}
	}
	if q.PartnerID != uuid.Nil {
		g = g.Where("o.partner_id = ?", q.PartnerID)
	}
	if !q.From.IsZero() {
		g = g.Where("o."+spec.at+" >= ?", q.From.UTC())
	}
	if !q.To.IsZero() {
		g = g.Where("o."+spec.at+" < ?", q.To.UTC())
	}
	if q.MinAmount > 0 {
		g = g.Where("o."+spec.amount+" >= ?", q.MinAmount)
	}
	if q.MaxAmount > 0 {
		g = g.Where("o."+spec.amount+" <= ?", q.MaxAmount)
	}
	if q.DueWithinDays != nil {
		if spec.due == "" {
			return nil, fmt.Errorf("%w: only loans fall due", ports.ErrBadList)
		}
		from, fromArgs := onToday("o.partner_id", spec.due+" >= ?", q.Today, 0)
		to, toArgs := onToday("o.partner_id", spec.due+" <= ?", q.Today, *q.DueWithinDays)
		g = g.Where("o.closed_at IS NULL").Where(from, fromArgs...).Where(to, toArgs...)
	}
	if q.MinDaysOverdue > 0 {
		// Overdue by n days at today: the first unpaid item's date is n days before today or earlier.
		overdue, args := onToday("o.partner_id", spec.due+" <= ?", q.Today, -q.MinDaysOverdue)
		g = g.Where("o.closed_at IS NULL").Where(overdue, args...)
	}
	dir, cmp := "DESC", "<"
	if q.Ascending {
		dir, cmp = "ASC", ">"
	}
	if a := q.After; a != nil {
		var after any = a.At.UTC()
		if q.Sort == ports.SortAmount {
			after = a.Amount
		}
		g = g.Where("("+key+", o.id) "+cmp+" (?, ?)", after, a.ID)
	}
	rows, err := scanRows(g.Order(key+" "+dir+", o.id "+dir).Limit(q.Limit), q.Today)
	if err != nil || !q.Wide || len(rows) == 0 {
		return rows, err
	}
	return rows, b.widen(ctx, q, rows)
}

// widen reads the export's own columns of the rows of q (ListQuery.Wide): one statement for the
// page's repayment requests, or one for its loans with their principal outstanding (the LOAN
// and OVERDUE_PRINCIPAL accounts) and, with q.Contacts, their clients.
func (b *BackOffice) widen(ctx context.Context, q ports.ListQuery, rows []ports.ListRow) error {
	ids := make([]uuid.UUID, len(rows))
	at := make(map[uuid.UUID]*ports.ListRow, len(rows))
	for i := range rows {
		ids[i], at[rows[i].ID] = rows[i].ID, &rows[i]
	}
	switch q.Kind {
	case ports.ListRepayments:
		var ms []repaymentModel
		if err := b.db.conn(ctx).Where("id IN ? AND paid_at IS NOT NULL", ids).Find(&ms).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		for i := range ms {
			p, err := ms[i].payment()
			if err != nil {
				return err
			}
			at[ms[i].ID].Payment = &p
		}
	case ports.ListLoans:
		var ms []struct {
			Loan          loanModel `gorm:"embedded"`
			Outstanding   *int64
			AppClientData string
			AppPhone      string
			AppBackup     *string
		}
		err := b.db.conn(ctx).Table("loans l").
			Select("l.*, acc.balance + COALESCE(od.balance, 0) AS outstanding, a.client_data AS app_client_data, "+
				"a.phone AS app_phone, a.offer_backup_phone AS app_backup").
			Joins("JOIN applications a ON a.id = l.application_id").
			Joins("LEFT JOIN ledger_accounts acc ON acc.loan_id = l.id AND acc.kind = ?", domain.AccountLoan.String()).
			Joins("LEFT JOIN ledger_accounts od ON od.loan_id = l.id AND od.kind = ?", domain.AccountOverduePrincipal.String()).
			Where("l.id IN ?", ids).Scan(&ms).Error
		if err != nil {
			return interpretError(err, nil, nil)
		}
		for _, m := range ms {
			row := at[m.Loan.ID]
			loan, err := m.Loan.toDomain()
			if err != nil {
				return err
			}
			row.Loan = loan
			if m.Outstanding != nil {
				row.Outstanding = *m.Outstanding
			}
			if q.Contacts {
				if row.Contact, err = b.contact(m.Loan.ApplicationID, m.AppClientData, m.AppPhone, m.AppBackup); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// contact opens a loan's client's name and phones from its application's sealed columns.
func (b *BackOffice) contact(applicationID uuid.UUID, clientData, phone string, backup *string) (*ports.ListContact, error) {
	cd, err := b.db.openClientData(clientData, applicationID)
	if err != nil {
		return nil, err
	}
	c := &ports.ListContact{Name: cd.FullName()}
	if c.Phone, err = b.db.openField(phone, "applications", "phone", applicationID); err != nil {
		return nil, err
	}
	if backup != nil {
		if c.BackupPhone, err = b.db.openField(*backup, "applications", "offer_backup_phone", applicationID); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// rows selects a list's rows of spec, each with its partner's name.
func (b *BackOffice) rows(ctx context.Context, spec listSpec) *gorm.DB {
	amount, due := "0", "NULL"
	if spec.amount != "" {
		amount = "COALESCE(o." + spec.amount + ", 0)"
	}
	if spec.due != "" {
		due = spec.due
	}
	return b.db.conn(ctx).Table(spec.table + " AS o").Joins("JOIN partners p ON p.id = o.partner_id").
		Select(fmt.Sprintf("o.id, o.partner_id, p.name AS partner, %s AS status, %s AS detail, %s AS amount, o.%s AS at, %s AS due",
			spec.status, spec.detail, amount, spec.at, due))
}

// scanRows reads the rows g selects; a loan's days overdue are counted at its partner's today.
func scanRows(g *gorm.DB, today ports.Today) ([]ports.ListRow, error) {
	var rows []listRow
	if err := g.Scan(&rows).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.ListRow, len(rows))
	for i, r := range rows {
		out[i] = ports.ListRow{ID: r.ID, PartnerID: r.PartnerID, Partner: r.Partner, Status: r.Status, Detail: r.Detail,
			Amount: r.Amount, At: r.At.UTC()}
		if at := today.Of(r.PartnerID); r.Due != nil && r.Status == "OPEN" && r.Due.UTC().Before(at) {
			out[i].DaysOverdue = domain.DaysBetween(r.Due.UTC(), at)
		}
	}
	return out, nil
}

// Client implements ports.BackOffice: a statement per part, each on an index (applications by
// the PINFL's blind index, loans and transfers by application, repayment requests by loan,
// issued cards by the PINFL's blind index, audit entries by object).
func (b *BackOffice) Client(ctx context.Context, pinflIndex string, today ports.Today, limit int) (ports.ClientRecord, error) {
	var c ports.ClientRecord
	newest := func(spec listSpec) string { return "o." + spec.at + " DESC, o.id DESC" }
	part := func(kind, where string, arg any) ([]ports.ListRow, error) {
		spec := listSpecs[kind]
		return scanRows(b.rows(ctx, spec).Where(where, arg).Order(newest(spec)).Limit(limit), today)
	}
	var err error
	if c.Applications, err = part(ports.ListApplications, "o.pinfl_index = ?", pinflIndex); err != nil || len(c.Applications) == 0 {
		return c, err
	}
	apps := make([]uuid.UUID, len(c.Applications))
	objects := make([]string, 0, 2*len(c.Applications))
	for i, a := range c.Applications {
		apps[i] = a.ID
		objects = append(objects, "application:"+a.ID.String())
	}
	if c.Loans, err = part(ports.ListLoans, "o.application_id IN ?", apps); err != nil {
		return c, err
	}
	loans := make([]uuid.UUID, len(c.Loans))
	for i, l := range c.Loans {
		loans[i] = l.ID
		objects = append(objects, "loan:"+l.ID.String())
	}
	if c.Transfers, err = part(ports.ListTransfers, "o.application_id IN ?", apps); err != nil {
		return c, err
	}
	if len(loans) > 0 {
		if c.Repayments, err = part(ports.ListRepayments, "o.loan_id IN ?", loans); err != nil {
			return c, err
		}
	}
	if c.Cards, err = part(ports.ListCards, "o.pinfl = ?", pinflIndex); err != nil {
		return c, err
	}
	var audit []auditModel
	if err := b.db.conn(ctx).Where("object IN ?", objects).Order("id DESC").Limit(limit).Find(&audit).Error; err != nil {
		return c, interpretError(err, nil, nil)
	}
	for _, m := range audit {
		c.Audit = append(c.Audit, m.toEntry())
	}
	return c, nil
}

// onToday is SQL true where cond holds at partnerColumn's partner's business date moved by
// days: cond compares with one placeholder, which each partner of today.Ahead fills with its
// own date and every other partner with today.Date. Outside the sandbox it is cond alone.
func onToday(partnerColumn, cond string, today ports.Today, days int) (string, []any) {
	if len(today.Ahead) == 0 {
		return cond, []any{today.Date.AddDate(0, 0, days)}
	}
	ids := make([]uuid.UUID, 0, len(today.Ahead))
	for p := range today.Ahead {
		ids = append(ids, p)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	var sql strings.Builder
	args := make([]any, 0, 3*len(ids)+1)
	sql.WriteString("((")
	for _, p := range ids {
		sql.WriteString(partnerColumn + " <> ? AND ")
		args = append(args, p)
	}
	sql.WriteString(cond + ")")
	args = append(args, today.Date.AddDate(0, 0, days))
	for _, p := range ids {
		sql.WriteString(" OR (" + partnerColumn + " = ? AND " + cond + ")")
		args = append(args, p, today.Ahead[p].AddDate(0, 0, days))
	}
	return sql.String() + ")", args
}
