package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BulkRepository implements ports.BulkRepository (migration 00036).
type BulkRepository struct{ db *DB }

// NewBulkRepository returns the repository on db.
func NewBulkRepository(db *DB) *BulkRepository { return &BulkRepository{db: db} }

type bulkLineModel struct {
	BatchID     uuid.UUID  `gorm:"column:batch_id;primaryKey"`
	Line        int        `gorm:"column:line;primaryKey"`
	ID          uuid.UUID  `gorm:"column:id"`
	Kind        string     `gorm:"column:kind"`
	Contract    string     `gorm:"column:contract"`
	LoanID      *uuid.UUID `gorm:"column:loan_id"`
	Amount      int64      `gorm:"column:amount"`
	Channel     string     `gorm:"column:channel"`
	Ref         string     `gorm:"column:ref"`
	PaymentType string     `gorm:"column:payment_type"`
	Refusal     string     `gorm:"column:refusal"`
}

func (bulkLineModel) TableName() string { return "bulk_lines" }

// AddLines implements ports.BulkRepository.
func (r *BulkRepository) AddLines(ctx context.Context, batch uuid.UUID, lines []domain.BulkLine) error {
	ms := make([]bulkLineModel, len(lines))
	for i, l := range lines {
		ms[i] = bulkLineModel{BatchID: batch, Line: l.Line, ID: l.ID, Kind: string(l.Kind), Contract: l.Contract, Amount: l.Amount, Channel: l.Channel.String(),
			Ref: l.Ref, PaymentType: l.Type.String(), Refusal: l.Refusal}
		if l.LoanID != uuid.Nil {
			id := l.LoanID
			ms[i].LoanID = &id
		}
	}
	if len(ms) == 0 {
		return nil
	}
	return interpretError(r.db.conn(ctx).CreateInBatches(ms, 200).Error, nil, nil)
}

// Lines implements ports.BulkRepository.
func (r *BulkRepository) Lines(ctx context.Context, batch uuid.UUID) ([]domain.BulkLine, error) {
	var ms []bulkLineModel
	if err := r.db.conn(ctx).Where("batch_id = ?", batch).Order("line").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.BulkLine, len(ms))
	for i, m := range ms {
		l := domain.BulkLine{ID: m.ID, Kind: domain.ProposalKind(m.Kind), Line: m.Line, Contract: m.Contract, Amount: m.Amount, Ref: m.Ref, Refusal: m.Refusal}
		if m.LoanID != nil {
			l.LoanID = *m.LoanID
		}
		var err error
		if m.Channel != "" {
			if l.Channel, err = domain.ParseChannel(m.Channel); err != nil {
				return nil, fmt.Errorf("bulk line %d: %w", m.Line, err)
			}
		}
		if m.PaymentType != "" {
			if l.Type, err = domain.ParsePaymentType(m.PaymentType); err != nil {
				return nil, fmt.Errorf("bulk line %d: %w", m.Line, err)
			}
		}
		out[i] = l
	}
	return out, nil
}

var _ ports.BulkRepository = (*BulkRepository)(nil)
