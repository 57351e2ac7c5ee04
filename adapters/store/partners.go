package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
)

type partnerModel struct {
	ID      uuid.UUID `gorm:"column:id;primaryKey"`
	Name    string    `gorm:"column:name"`
	KeyHash []byte    `gorm:"column:key_hash"`
	// PreviousKeyHash is the key a rotation replaced, working until PreviousKeyUntil.
	PreviousKeyHash  []byte     `gorm:"column:previous_key_hash"`
	PreviousKeyUntil *time.Time `gorm:"column:previous_key_until"`
	Disabled         bool       `gorm:"column:disabled"`
	CreatedAt        time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	// WebhookURL and WebhookSecret (sealed by the application) are the partner's webhook.
	WebhookURL    string `gorm:"column:webhook_url"`
	WebhookSecret string `gorm:"column:webhook_secret"`
	// The secret a new one replaced (sealed), signing beside it until its end.
	PreviousWebhookSecret      string     `gorm:"column:previous_webhook_secret"`
	PreviousWebhookSecretUntil *time.Time `gorm:"column:previous_webhook_secret_until"`
	// SandboxKey is the sandbox partner's key, sealed by the application (sandbox only).
	SandboxKey string `gorm:"column:sandbox_key"`
}

func (partnerModel) TableName() string { return "partners" }

func (m partnerModel) toDomain() domain.Partner {
	return domain.Partner{ID: m.ID, Name: m.Name, KeyHash: m.KeyHash, PreviousKeyHash: m.PreviousKeyHash,
		PreviousKeyUntil: fromOptTime(m.PreviousKeyUntil), Disabled: m.Disabled, CreatedAt: m.CreatedAt.UTC(),
		WebhookURL: m.WebhookURL, WebhookSecret: m.WebhookSecret, PreviousWebhookSecret: m.PreviousWebhookSecret,
		PreviousWebhookSecretUntil: fromOptTime(m.PreviousWebhookSecretUntil), SandboxKey: m.SandboxKey}
}

// PartnerRepository implements ports.PartnerRepository.
type PartnerRepository struct{ db *DB }

// NewPartnerRepository returns the repository on db.
func NewPartnerRepository(db *DB) *PartnerRepository { return &PartnerRepository{db: db} }

var partnerUnique = constraintErrors{
	"partners_name_key": domain.ErrPartnerExists,
	"partners.name":     domain.ErrPartnerExists,
}

// Create implements ports.PartnerRepository.
func (r *PartnerRepository) Create(ctx context.Context, p domain.Partner) error {
	m := partnerModel{ID: p.ID, Name: p.Name, KeyHash: p.KeyHash, PreviousKeyHash: p.PreviousKeyHash,
		PreviousKeyUntil: optTime(p.PreviousKeyUntil), Disabled: p.Disabled, CreatedAt: p.CreatedAt.UTC(),
		WebhookURL: p.WebhookURL, WebhookSecret: p.WebhookSecret, SandboxKey: p.SandboxKey}
	return interpretError(r.db.conn(ctx).Create(&m).Error, nil, partnerUnique)
}

// ByKeyHash implements ports.PartnerRepository.
func (r *PartnerRepository) ByKeyHash(ctx context.Context, h []byte) (domain.Partner, error) {
	var m partnerModel
	// The key, or the key a rotation replaced (the caller checks that its overlap lasts).
	if err := r.db.conn(ctx).Where("key_hash = ? OR previous_key_hash = ?", h, h).Take(&m).Error; err != nil {
		return domain.Partner{}, interpretError(err, domain.ErrPartnerNotFound, nil)
	}
	return m.toDomain(), nil
}

// ByName implements ports.PartnerRepository.
func (r *PartnerRepository) ByName(ctx context.Context, name string) (domain.Partner, error) {
	var m partnerModel
	if err := r.db.conn(ctx).Where("name = ?", name).Take(&m).Error; err != nil {
		return domain.Partner{}, interpretError(err, domain.ErrPartnerNotFound, nil)
	}
	return m.toDomain(), nil
}

// List implements ports.PartnerRepository.
func (r *PartnerRepository) List(ctx context.Context) ([]domain.Partner, error) {
	var ms []partnerModel
	if err := r.db.conn(ctx).Order("created_at, name").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.Partner, len(ms))
	for i, m := range ms {
		out[i] = m.toDomain()
	}
	return out, nil
}

// Update implements ports.PartnerRepository.
func (r *PartnerRepository) Update(ctx context.Context, name string, fn func(p *domain.Partner) error) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		var m partnerModel
		err := r.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("name = ?", name).Take(&m).Error
		if err != nil {
			return interpretError(err, domain.ErrPartnerNotFound, nil)
		}
		p := m.toDomain()
		if err := fn(&p); err != nil {
			return err
		}
		m.KeyHash, m.Disabled, m.WebhookURL, m.WebhookSecret = p.KeyHash, p.Disabled, p.WebhookURL, p.WebhookSecret
		m.PreviousKeyHash, m.PreviousKeyUntil = p.PreviousKeyHash, optTime(p.PreviousKeyUntil)
		m.PreviousWebhookSecret, m.PreviousWebhookSecretUntil = p.PreviousWebhookSecret, optTime(p.PreviousWebhookSecretUntil)
		m.SandboxKey = p.SandboxKey
		return interpretError(r.db.conn(ctx).Select("key_hash", "previous_key_hash", "previous_key_until", "disabled", "webhook_url",
			"webhook_secret", "previous_webhook_secret", "previous_webhook_secret_until", "sandbox_key").Updates(&m).Error, nil, partnerUnique)
	})
}
