package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

type repaymentModel struct {
	ID                    uuid.UUID  `gorm:"column:id;primaryKey"`
	PartnerID             uuid.UUID  `gorm:"column:partner_id"`
	LoanID                uuid.UUID  `gorm:"column:loan_id"`
	ContractNumber        string     `gorm:"column:contract_number"`
	LoanVersion           int        `gorm:"column:loan_version"`
	QuoteNotDuePrincipal  int64      `gorm:"column:quote_not_due_principal"`
	QuoteOverduePrincipal int64      `gorm:"column:quote_overdue_principal"`
	QuoteOverdueInterest  int64      `gorm:"column:quote_overdue_interest"`
	QuoteTermInterest     int64      `gorm:"column:quote_term_interest"`
	QuotePenalty          int64      `gorm:"column:quote_penalty"`
	AccountBalance        int64      `gorm:"column:account_balance"`
	CheckedAt             time.Time  `gorm:"column:checked_at"`
	ExpireAt              time.Time  `gorm:"column:expire_at"`
	PaymentType           *string    `gorm:"column:payment_type"`
	Amount                *int64     `gorm:"column:amount"`
	DebitID               *string    `gorm:"column:debit_id"`
	Network               *string    `gorm:"column:network"`
	ExternalID            *uuid.UUID `gorm:"column:external_id"`
	TransactionID         *uuid.UUID `gorm:"column:transaction_id"`
	PaidAt                *time.Time `gorm:"column:paid_at"`
	Principal             *int64     `gorm:"column:principal"`
	Interest              *int64     `gorm:"column:interest"`
	Penalty               *int64     `gorm:"column:penalty"`
	// Channel is how the money came; for the cash desk and bank transfers, network holds the
	// channel too, so that a receipt's or transfer's reference pays once (repayments_debit_key).
	Channel  string `gorm:"column:channel"`
	Recovery bool   `gorm:"column:recovery"`
}

func (repaymentModel) TableName() string { return "repayments" }

func toRepaymentModel(r *domain.Repayment) *repaymentModel {
	s := r.State()
	m := &repaymentModel{ID: s.ID, PartnerID: s.PartnerID, LoanID: s.LoanID, ContractNumber: s.ContractNumber,
		LoanVersion: s.LoanVersion, QuoteNotDuePrincipal: s.Quote.NotDuePrincipal, QuoteOverduePrincipal: s.Quote.OverduePrincipal,
		QuoteOverdueInterest: s.Quote.OverdueInterest, QuoteTermInterest: s.Quote.TermInterest, QuotePenalty: s.Quote.Penalty,
		AccountBalance: s.AccountBalance, CheckedAt: s.CheckedAt.UTC(), ExpireAt: s.ExpireAt.UTC(), Channel: domain.ChannelCard.String()}
	if p := s.Payment; p != nil {
		typ, network, at := p.Type.String(), p.Network.String(), p.At.UTC()
		m.Channel, m.Recovery = p.Channel.String(), p.Recovery
		if p.Channel != domain.ChannelCard {
			network = p.Channel.String()
		}
		m.PaymentType, m.Amount, m.DebitID, m.Network = &typ, &p.Amount, &p.DebitID, &network
		m.ExternalID, m.TransactionID, m.PaidAt = &p.ExternalID, &p.TransactionID, &at
		m.Principal, m.Interest, m.Penalty = &p.Principal, &p.Interest, &p.Penalty
	}
	return m
}

func (m *repaymentModel) toDomain() (*domain.Repayment, error) {
	s := domain.RepaymentState{ID: m.ID, PartnerID: m.PartnerID, LoanID: m.LoanID, ContractNumber: m.ContractNumber,
		LoanVersion: m.LoanVersion, Quote: domain.Position{NotDuePrincipal: m.QuoteNotDuePrincipal,
			OverduePrincipal: m.QuoteOverduePrincipal, OverdueInterest: m.QuoteOverdueInterest,
			TermInterest: m.QuoteTermInterest, Penalty: m.QuotePenalty},
		AccountBalance: m.AccountBalance, CheckedAt: m.CheckedAt.UTC(), ExpireAt: m.ExpireAt.UTC()}
	if m.PaidAt != nil {
		p, err := m.payment()
		if err != nil {
			return nil, err
		}
		s.Payment = &p
	}
	return domain.RestoreRepayment(s), nil
}

func (m *repaymentModel) payment() (domain.Payment, error) {
	if m.PaymentType == nil || m.Amount == nil || m.DebitID == nil || m.Network == nil || m.ExternalID == nil ||
		m.TransactionID == nil || m.Principal == nil || m.Interest == nil || m.Penalty == nil {
		return domain.Payment{}, fmt.Errorf("stored repayment %s: payment incomplete", m.ID)
	}
	typ, err := domain.ParsePaymentType(*m.PaymentType)
	if err != nil {
		return domain.Payment{}, fmt.Errorf("stored repayment %s: %w", m.ID, err)
	}
	channel, err := domain.ParseChannel(m.Channel)
	if err != nil {
		return domain.Payment{}, fmt.Errorf("stored repayment %s: %w", m.ID, err)
	}
	var network domain.Network
	if channel == domain.ChannelCard {
		if network, err = domain.ParseNetwork(*m.Network); err != nil {
			return domain.Payment{}, fmt.Errorf("stored repayment %s: %w", m.ID, err)
		}
	}
	return domain.Payment{Type: typ, Amount: *m.Amount, Channel: channel, DebitID: *m.DebitID, Network: network,
		ExternalID: *m.ExternalID, TransactionID: *m.TransactionID, At: m.PaidAt.UTC(), Principal: *m.Principal,
		Interest: *m.Interest, Penalty: *m.Penalty, Recovery: m.Recovery}, nil
}

// RepaymentRepository implements ports.RepaymentRepository.
type RepaymentRepository struct{ db *DB }

// NewRepaymentRepository returns the repository on db.
func NewRepaymentRepository(db *DB) *RepaymentRepository { return &RepaymentRepository{db: db} }

var repaymentUnique = constraintErrors{
	"repayments_debit_key":                    domain.ErrDebitUsed,
	"repayments.network, repayments.debit_id": domain.ErrDebitUsed,
}

// Create implements ports.RepaymentRepository. A checked request has no debit yet, so no
// constraint can refuse it; a manual repayment, created paid, is refused when its reference
// paid another already.
func (r *RepaymentRepository) Create(ctx context.Context, rp *domain.Repayment) error {
	return createWithEvents(ctx, r.db, toRepaymentModel(rp), rp, repaymentUnique)
}

// ReceiptUsed implements ports.RepaymentRepository: a manual repayment is stored under its
// channel as its network, with its reference as its debit (the unique key Create meets).
func (r *RepaymentRepository) ReceiptUsed(ctx context.Context, channel domain.Channel, ref string) (bool, error) {
	var n int64
	err := r.db.conn(ctx).Model(&repaymentModel{}).Where("network = ? AND debit_id = ?", channel.String(), ref).Limit(1).Count(&n).Error
	return n > 0, interpretError(err, nil, nil)
}

// Get implements ports.RepaymentRepository.
func (r *RepaymentRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Repayment, error) {
	var m repaymentModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrRepaymentNotFound, nil)
	}
	return m.toDomain()
}

// Update implements ports.RepaymentRepository.
func (r *RepaymentRepository) Update(ctx context.Context, id uuid.UUID, fn func(r *domain.Repayment) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrRepaymentNotFound, repaymentUnique,
		(*repaymentModel).toDomain, func(r *domain.Repayment) (*repaymentModel, error) { return toRepaymentModel(r), nil }, fn)
}

// ListPayments implements ports.RepaymentRepository.
func (r *RepaymentRepository) ListPayments(ctx context.Context, loanID uuid.UUID) ([]domain.Payment, error) {
	var ms []repaymentModel
	err := r.db.conn(ctx).Where("loan_id = ? AND paid_at IS NOT NULL", loanID).Order("paid_at, id").Find(&ms).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.Payment, 0, len(ms))
	for i := range ms {
		p, err := ms[i].payment()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
