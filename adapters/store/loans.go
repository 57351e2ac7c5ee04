package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

type loanModel struct {
	ID             uuid.UUID  `gorm:"column:id;primaryKey"`
	ApplicationID  uuid.UUID  `gorm:"column:application_id"`
	PartnerID      uuid.UUID  `gorm:"column:partner_id"`
	Amount         int64      `gorm:"column:amount"`
	MonthPeriod    int        `gorm:"column:month_period"`
	Rate           int64      `gorm:"column:rate"`
	ServiceRate    int64      `gorm:"column:service_rate"`
	PenaltyDaily   int64      `gorm:"column:penalty_daily"`
	ScheduleType   string     `gorm:"column:schedule_type"`
	AccountNumber  string     `gorm:"column:account_number"`
	ContractNumber *string    `gorm:"column:contract_number"`
	IssuedAt       time.Time  `gorm:"column:issued_at;autoCreateTime:false"`
	Repayments     int        `gorm:"column:repayments"`
	ClosedAt       *time.Time `gorm:"column:closed_at"`
	WrittenOffAt   *time.Time `gorm:"column:written_off_at"`
	Book           *string    `gorm:"column:book"`
	// FirstUnpaidDue is domain.Loan.FirstUnpaidDue, kept with every save so the console's
	// lists and reports tell a loan's days overdue without reading its book.
	FirstUnpaidDue *time.Time `gorm:"column:first_unpaid_due"`
	// Books is the loan's standing in the accrual books (JSON), BooksDay its last day closed
	// and BooksOpen whether the close still visits it.
	Books     *string `gorm:"column:books"`
	BooksDay  *string `gorm:"column:books_day"`
	BooksOpen bool    `gorm:"column:books_open"`
}

func (loanModel) TableName() string { return "loans" }

// loanForRepayment joins the loan to its application (for the client's name) and to its
// demand account, whose key is "DEMAND:<loan id>" (domain.Account.Key).
const loanForRepayment = `SELECT l.*, a.client_data AS app_client_data, acc.balance AS demand_balance
FROM loans l
JOIN applications a ON a.id = l.application_id
LEFT JOIN ledger_accounts acc ON acc.key = ? || CAST(l.id AS TEXT)
WHERE l.contract_number = ?`

// getLoan reads the one loan whose column equals value.
func (r *LoanRepository) getLoan(ctx context.Context, column string, value any) (*domain.Loan, error) {
	var m loanModel
	if err := r.db.conn(ctx).Where(column+" = ?", value).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrLoanNotFound, nil)
	}
	return m.toDomain()
}

// LoanRepository implements ports.LoanRepository.
type LoanRepository struct{ db *DB }

// NewLoanRepository returns the repository on db.
func NewLoanRepository(db *DB) *LoanRepository { return &LoanRepository{db: db} }

// Create implements ports.LoanRepository.
func (r *LoanRepository) Create(ctx context.Context, l *domain.Loan) error {
	m, err := toLoanModel(l)
	if err != nil {
		return err
	}
	return createWithEvents(ctx, r.db, m, l, nil)
}

func toLoanModel(l *domain.Loan) (*loanModel, error) {
	s := l.State()
	m := &loanModel{ID: s.ID, ApplicationID: s.ApplicationID, PartnerID: s.PartnerID,
		Amount: s.Amount.Tiyin(), MonthPeriod: s.MonthPeriod, Rate: s.Rate.Hundredths(),
		ServiceRate: s.ServiceRate.Hundredths(), PenaltyDaily: s.PenaltyDaily.Hundredths(),
		ScheduleType: s.ScheduleType.String(), AccountNumber: s.AccountNumber, IssuedAt: s.IssuedAt.UTC(),
		Repayments: s.Repayments, ClosedAt: optTime(s.ClosedAt), WrittenOffAt: optTime(s.WrittenOffAt)}
	if s.ContractNumber != "" {
		m.ContractNumber = &s.ContractNumber
	}
	if s.Book != nil {
		book := encodeBook(s.Book)
		m.Book = &book
	}
	if s.Books != nil {
		books, err := encodeBooks(*s.Books)
		if err != nil {
			return nil, fmt.Errorf("loan %s: %w", s.ID, err)
		}
		day := s.Books.Day.Format(domain.DateLayout)
		m.Books, m.BooksDay = &books, &day
	}
	m.BooksOpen = l.BooksOpen()
	due, ok, err := l.FirstUnpaidDue()
	if err != nil {
		return nil, fmt.Errorf("loan %s: %w", s.ID, err)
	}
	if ok {
		m.FirstUnpaidDue = &due
	}
	return m, nil
}

// GetByApplication implements ports.LoanRepository.
func (r *LoanRepository) GetByApplication(ctx context.Context, applicationID uuid.UUID) (*domain.Loan, error) {
	return r.getLoan(ctx, "application_id", applicationID)
}

// Get implements ports.LoanRepository.
func (r *LoanRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Loan, error) {
	return r.getLoan(ctx, "id", id)
}

// GetByContract implements ports.LoanRepository.
func (r *LoanRepository) GetByContract(ctx context.Context, number string) (*domain.Loan, error) {
	return r.getLoan(ctx, "contract_number", number)
}

// GetForRepayment implements ports.LoanRepository.
func (r *LoanRepository) GetForRepayment(ctx context.Context, number string) (ports.LoanForRepayment, error) {
	var got struct {
		Loan          loanModel `gorm:"embedded"`
		AppClientData string
		DemandBalance *int64
	}
	res := r.db.conn(ctx).Raw(loanForRepayment, domain.AccountDemand.String()+":", number).Scan(&got)
	if err := interpretError(res.Error, nil, nil); err != nil {
		return ports.LoanForRepayment{}, err
	}
	if res.RowsAffected == 0 {
		return ports.LoanForRepayment{}, domain.ErrLoanNotFound
	}
	if got.DemandBalance == nil {
		return ports.LoanForRepayment{}, errNoAccount(domain.LoanAccount(domain.AccountDemand, got.Loan.ID).Key())
	}
	loan, err := got.Loan.toDomain()
	if err != nil {
		return ports.LoanForRepayment{}, err
	}
	client, err := r.db.openClientData(got.AppClientData, got.Loan.ApplicationID)
	if err != nil {
		return ports.LoanForRepayment{}, err
	}
	return ports.LoanForRepayment{Loan: loan, DemandBalance: *got.DemandBalance, ClientName: client.FullName()}, nil
}

// ListAwaitingContract implements ports.LoanRepository.
func (r *LoanRepository) ListAwaitingContract(ctx context.Context, partners ports.Partners, t time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&loanModel{}).Scopes(ofPartners(partners)).Where("contract_number IS NULL AND issued_at < ?", t.UTC()).
		Order("issued_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// Update implements ports.LoanRepository.
func (r *LoanRepository) Update(ctx context.Context, id uuid.UUID, fn func(l *domain.Loan) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrLoanNotFound, loanUnique, (*loanModel).toDomain, toLoanModel, fn)
}

var loanUnique = constraintErrors{"loans_contract_number_key": errors.New("contract number already used by another loan")}

func (m *loanModel) toDomain() (*domain.Loan, error) {
	rate, err1 := domain.PercentFromHundredths(m.Rate)
	service, err2 := domain.PercentFromHundredths(m.ServiceRate)
	penalty, err3 := domain.PercentFromHundredths(m.PenaltyDaily)
	st, err4 := domain.ParseScheduleType(m.ScheduleType)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("stored loan %s: %w", m.ID, err)
	}
	s := domain.LoanState{ID: m.ID, ApplicationID: m.ApplicationID, PartnerID: m.PartnerID,
		Amount: domain.Amount(m.Amount), MonthPeriod: m.MonthPeriod, Rate: rate, ServiceRate: service,
		PenaltyDaily: penalty, ScheduleType: st, AccountNumber: m.AccountNumber, IssuedAt: m.IssuedAt.UTC(),
		Repayments: m.Repayments, ClosedAt: fromOptTime(m.ClosedAt), WrittenOffAt: fromOptTime(m.WrittenOffAt)}
	if m.ContractNumber != nil {
		s.ContractNumber = *m.ContractNumber
	}
	if m.Book != nil {
		var err error
		if s.Book, err = decodeBook(*m.Book, m.Rate+m.ServiceRate); err != nil {
			return nil, fmt.Errorf("stored loan %s: %w", m.ID, err)
		}
	}
	if m.Books != nil {
		books, err := decodeBooks(*m.Books)
		if err != nil {
			return nil, fmt.Errorf("stored loan %s: %w", m.ID, err)
		}
		s.Books = &books
	}
	return domain.RestoreLoan(s), nil
}
