package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

type transferModel struct {
	ID            uuid.UUID  `gorm:"column:id;primaryKey"`
	PartnerID     uuid.UUID  `gorm:"column:partner_id"`
	ApplicationID uuid.UUID  `gorm:"column:application_id"`
	LoanID        uuid.UUID  `gorm:"column:loan_id"`
	ExternalID    uuid.UUID  `gorm:"column:external_id"`
	MaskedPAN     string     `gorm:"column:masked_pan"`
	AccountNumber string     `gorm:"column:account_number"`
	Network       string     `gorm:"column:network"`
	CardHolder    string     `gorm:"column:card_holder"`
	Amount        int64      `gorm:"column:amount"`
	CreditToken   string     `gorm:"column:credit_token"`
	Status        string     `gorm:"column:status"`
	Message       string     `gorm:"column:message"`
	CreatedAt     time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	FinishedAt    *time.Time `gorm:"column:finished_at"`
	UpdatedAt     time.Time  `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (transferModel) TableName() string { return "transfers" }

func toTransferModel(t *domain.Transfer) *transferModel {
	s := t.State()
	return &transferModel{ID: s.ID, PartnerID: s.PartnerID, ApplicationID: s.ApplicationID, LoanID: s.LoanID,
		ExternalID: s.ExternalID, MaskedPAN: s.MaskedPAN, AccountNumber: s.AccountNumber, Network: s.Network.String(), CardHolder: s.CardHolder,
		Amount: s.Amount.Tiyin(), CreditToken: s.CreditToken, Status: s.Status.String(), Message: s.Message,
		CreatedAt: s.CreatedAt.UTC(), FinishedAt: optTime(s.FinishedAt), UpdatedAt: s.UpdatedAt.UTC()}
}

func (m *transferModel) toDomain() (*domain.Transfer, error) {
	status, err := domain.ParseTransferStatus(m.Status)
	if err != nil {
		return nil, fmt.Errorf("stored transfer %s: %w", m.ID, err)
	}
	network, err := domain.ParseNetwork(m.Network)
	if err != nil {
		return nil, fmt.Errorf("stored transfer %s: %w", m.ID, err)
	}
	return domain.RestoreTransfer(domain.TransferState{ID: m.ID, PartnerID: m.PartnerID, ApplicationID: m.ApplicationID,
		LoanID: m.LoanID, ExternalID: m.ExternalID, MaskedPAN: m.MaskedPAN, AccountNumber: m.AccountNumber, Network: network, CardHolder: m.CardHolder,
		Amount: domain.Amount(m.Amount), CreditToken: m.CreditToken, Status: status, Message: m.Message,
		CreatedAt: m.CreatedAt.UTC(), FinishedAt: fromOptTime(m.FinishedAt), UpdatedAt: m.UpdatedAt.UTC()}), nil
}

// TransferRepository implements ports.TransferRepository.
type TransferRepository struct{ db *DB }

// toModel maps the transfer to its row, the card holder's name sealed.
func (r *TransferRepository) toModel(t *domain.Transfer) (*transferModel, error) {
	m := toTransferModel(t)
	var err error
	m.CardHolder, err = r.db.sealField(m.CardHolder, "transfers", "card_holder", m.ID)
	return m, err
}

// load maps a row to the transfer, the card holder's name opened.
func (r *TransferRepository) load(m *transferModel) (*domain.Transfer, error) {
	var err error
	if m.CardHolder, err = r.db.openField(m.CardHolder, "transfers", "card_holder", m.ID); err != nil {
		return nil, fmt.Errorf("stored transfer %s: card holder: %w", m.ID, err)
	}
	return m.toDomain()
}

// NewTransferRepository returns the repository on db.
func NewTransferRepository(db *DB) *TransferRepository { return &TransferRepository{db: db} }

var transferUnique = constraintErrors{
	"transfers_partner_external_key":              domain.ErrExternalIDUsed,
	"transfers.partner_id, transfers.external_id": domain.ErrExternalIDUsed,
}

// Create implements ports.TransferRepository.
func (r *TransferRepository) Create(ctx context.Context, t *domain.Transfer) error {
	m, err := r.toModel(t)
	if err != nil {
		return err
	}
	return createWithEvents(ctx, r.db, m, t, transferUnique)
}

// Get implements ports.TransferRepository.
func (r *TransferRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Transfer, error) {
	var m transferModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrTransferNotFound, nil)
	}
	return r.load(&m)
}

// Update implements ports.TransferRepository.
func (r *TransferRepository) Update(ctx context.Context, id uuid.UUID, fn func(t *domain.Transfer) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrTransferNotFound, nil, r.load, r.toModel, fn)
}

// ListNewBefore implements ports.TransferRepository.
func (r *TransferRepository) ListNewBefore(ctx context.Context, partners ports.Partners, loanID uuid.UUID, t time.Time, limit int) ([]uuid.UUID, error) {
	q := r.db.conn(ctx).Model(&transferModel{}).Scopes(ofPartners(partners)).Where("status = 'NEW' AND created_at < ?", t.UTC())
	if loanID != uuid.Nil {
		q = q.Where("loan_id = ?", loanID)
	}
	var ids []uuid.UUID
	err := q.Order("created_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// ListProcessingBefore implements ports.TransferRepository.
func (r *TransferRepository) ListProcessingBefore(ctx context.Context, partners ports.Partners, t time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&transferModel{}).Scopes(ofPartners(partners)).Where("status = 'PROCESSING' AND updated_at < ?", t.UTC()).
		Order("updated_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// CountProcessingBefore implements ports.TransferRepository.
func (r *TransferRepository) CountProcessingBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := r.db.conn(ctx).Model(&transferModel{}).Where("status = 'PROCESSING' AND updated_at < ?", t.UTC()).Count(&n).Error
	return int(n), interpretError(err, nil, nil)
}
