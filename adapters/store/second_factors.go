package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Operators' second factors (issue 46) and recovery codes. A factor's secret is sealed like
// personal data (sealField, bound to its table, column and row; `tiyin reseal` moves it to a
// new key); a recovery code is kept as a hash the application made.

type factorModel struct {
	ID         uuid.UUID  `gorm:"column:id;primaryKey"`
	OperatorID uuid.UUID  `gorm:"column:operator_id"`
	Kind       string     `gorm:"column:kind"`
	Secret     string     `gorm:"column:secret"`
	LastStep   int64      `gorm:"column:last_step"`
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	EnrolledAt *time.Time `gorm:"column:enrolled_at"`
}

func (factorModel) TableName() string { return "operator_factors" }

type recoveryCodeModel struct {
	OperatorID uuid.UUID  `gorm:"column:operator_id;primaryKey"`
	Hash       []byte     `gorm:"column:hash;primaryKey"`
	CreatedAt  time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	UsedAt     *time.Time `gorm:"column:used_at"`
}

func (recoveryCodeModel) TableName() string { return "operator_recovery_codes" }

// SecondFactorRepository implements ports.SecondFactorRepository.
type SecondFactorRepository struct{ db *DB }

// NewSecondFactorRepository returns the repository on db.
func NewSecondFactorRepository(db *DB) *SecondFactorRepository {
	return &SecondFactorRepository{db: db}
}

var _ ports.SecondFactorRepository = (*SecondFactorRepository)(nil)

// row is the factor as stored, its secret sealed.
func (r *SecondFactorRepository) row(f *domain.SecondFactor) (factorModel, error) {
	s := f.State()
	secret, err := r.db.sealField(s.Secret, "operator_factors", "secret", s.ID)
	return factorModel{ID: s.ID, OperatorID: s.OperatorID, Kind: s.Kind.String(), Secret: secret, LastStep: s.LastStep,
		CreatedAt: s.CreatedAt.UTC(), EnrolledAt: optTime(s.EnrolledAt)}, err
}

// toDomain opens the secret and rebuilds the factor.
func (r *SecondFactorRepository) toDomain(m factorModel) (*domain.SecondFactor, error) {
	kind, err := domain.ParseFactorKind(m.Kind)
	if err != nil {
		return nil, err
	}
	secret, err := r.db.openField(m.Secret, "operator_factors", "secret", m.ID)
	if err != nil {
		return nil, err
	}
	return domain.RestoreSecondFactor(domain.SecondFactorState{ID: m.ID, OperatorID: m.OperatorID, Kind: kind, Secret: secret,
		LastStep: m.LastStep, CreatedAt: m.CreatedAt.UTC(), EnrolledAt: fromOptTime(m.EnrolledAt)}), nil
}

// Factor implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) Factor(ctx context.Context, operatorID uuid.UUID, kind domain.FactorKind) (*domain.SecondFactor, error) {
	var m factorModel
	if err := r.db.conn(ctx).Where("operator_id = ? AND kind = ?", operatorID, kind.String()).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrNoSecondFactor, nil)
	}
	return r.toDomain(m)
}

// CreateFactor implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) CreateFactor(ctx context.Context, f *domain.SecondFactor) (bool, error) {
	m, err := r.row(f)
	if err != nil {
		return false, err
	}
	res := r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m)
	return res.RowsAffected == 1, interpretError(res.Error, nil, nil)
}

// UpdateFactor implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) UpdateFactor(ctx context.Context, id uuid.UUID, fn func(f *domain.SecondFactor) error) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		var m factorModel
		err := r.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error
		if err != nil {
			return interpretError(err, domain.ErrNoSecondFactor, nil)
		}
		f, err := r.toDomain(m)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		s := f.State()
		return interpretError(r.db.conn(ctx).Model(&factorModel{ID: id}).Updates(map[string]any{"last_step": s.LastStep,
			"enrolled_at": optTime(s.EnrolledAt)}).Error, nil, nil)
	})
}

// RemoveFactors implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) RemoveFactors(ctx context.Context, operatorID uuid.UUID) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		if err := r.db.conn(ctx).Where("operator_id = ?", operatorID).Delete(&recoveryCodeModel{}).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		return interpretError(r.db.conn(ctx).Where("operator_id = ?", operatorID).Delete(&factorModel{}).Error, nil, nil)
	})
}

// Enrolled implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) Enrolled(ctx context.Context) (map[uuid.UUID]time.Time, error) {
	var ms []factorModel
	if err := r.db.conn(ctx).Select("operator_id", "enrolled_at").Where("enrolled_at IS NOT NULL").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make(map[uuid.UUID]time.Time, len(ms))
	for _, m := range ms {
		out[m.OperatorID] = fromOptTime(m.EnrolledAt)
	}
	return out, nil
}

// ReplaceRecoveryCodes implements ports.SecondFactorRepository.
func (r *SecondFactorRepository) ReplaceRecoveryCodes(ctx context.Context, operatorID uuid.UUID, hashes [][]byte, at time.Time) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		if err := r.db.conn(ctx).Where("operator_id = ?", operatorID).Delete(&recoveryCodeModel{}).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		ms := make([]recoveryCodeModel, len(hashes))
		for i, h := range hashes {
			ms[i] = recoveryCodeModel{OperatorID: operatorID, Hash: h, CreatedAt: at.UTC()}
		}
		return interpretError(r.db.conn(ctx).Create(&ms).Error, nil, nil)
	})
}

// UseRecoveryCode implements ports.SecondFactorRepository: one UPDATE marks the code used only
// while it is unused, so two logins with one code cannot both succeed.
func (r *SecondFactorRepository) UseRecoveryCode(ctx context.Context, operatorID uuid.UUID, hash []byte, at time.Time) (bool, error) {
	res := r.db.conn(ctx).Model(&recoveryCodeModel{}).Where("operator_id = ? AND hash = ? AND used_at IS NULL", operatorID, hash).
		Update("used_at", at.UTC())
	return res.RowsAffected == 1, interpretError(res.Error, nil, nil)
}
