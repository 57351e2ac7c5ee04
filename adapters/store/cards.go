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

type cardModel struct {
	ID           uuid.UUID  `gorm:"column:id;primaryKey"`
	PartnerID    uuid.UUID  `gorm:"column:partner_id"`
	Origin       string     `gorm:"column:origin"`
	Network      string     `gorm:"column:network"`
	MaskedPAN    string     `gorm:"column:masked_pan"`
	PANHash      []byte     `gorm:"column:pan_hash"`
	Expiry       string     `gorm:"column:expiry"`
	Phone        string     `gorm:"column:phone"`
	PINFL        string     `gorm:"column:pinfl"`
	NetworkRef   string     `gorm:"column:network_ref"`
	Token        string     `gorm:"column:token"`
	Status       string     `gorm:"column:status"`
	Reason       string     `gorm:"column:reason"`
	OTPHash      []byte     `gorm:"column:otp_hash"`
	OTPSentAt    *time.Time `gorm:"column:otp_sent_at"`
	OTPExpiresAt *time.Time `gorm:"column:otp_expires_at"`
	OTPAttempts  int        `gorm:"column:otp_attempts"`
	CodeAccepted *time.Time `gorm:"column:code_accepted_at"`
	CreatedAt    time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt    time.Time  `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (cardModel) TableName() string { return "cards" }

func toCardModel(c *domain.Card) *cardModel {
	s := c.State()
	return &cardModel{ID: s.ID, PartnerID: s.PartnerID, Origin: s.Origin.String(), Network: s.Network.String(),
		MaskedPAN: s.MaskedPAN, PANHash: s.PANHash, Expiry: s.Expiry.String(), Phone: s.Phone.String(), PINFL: s.PINFL,
		NetworkRef: s.NetworkRef, Token: s.Token, Status: s.Status.String(), Reason: s.Reason, OTPHash: s.OTPHash,
		OTPSentAt: optTime(s.OTPSentAt), OTPExpiresAt: optTime(s.OTPExpiresAt), OTPAttempts: s.OTPAttempts,
		CodeAccepted: optTime(s.CodeAcceptedAt), CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

func (m *cardModel) toDomain() (*domain.Card, error) {
	origin, err1 := domain.ParseCardOrigin(m.Origin)
	network, err2 := domain.ParseNetwork(m.Network)
	expiry, err3 := domain.RestoreExpiry(m.Expiry)
	phone, err4 := domain.ParsePhone(m.Phone)
	status, err5 := domain.ParseCardStatus(m.Status)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, fmt.Errorf("stored card %s: %w", m.ID, err)
	}
	return domain.RestoreCard(domain.CardState{ID: m.ID, PartnerID: m.PartnerID, Origin: origin, Network: network,
		MaskedPAN: m.MaskedPAN, PANHash: m.PANHash, Expiry: expiry, Phone: phone, PINFL: m.PINFL, NetworkRef: m.NetworkRef,
		Token: m.Token, Status: status, Reason: m.Reason, OTPHash: m.OTPHash, OTPSentAt: fromOptTime(m.OTPSentAt),
		OTPExpiresAt: fromOptTime(m.OTPExpiresAt), OTPAttempts: m.OTPAttempts, CodeAcceptedAt: fromOptTime(m.CodeAccepted), CreatedAt: m.CreatedAt.UTC(),
		UpdatedAt: m.UpdatedAt.UTC()}), nil
}

// CardRepository implements ports.CardRepository.
type CardRepository struct{ db *DB }

// NewCardRepository returns the repository on db.
func NewCardRepository(db *DB) *CardRepository { return &CardRepository{db: db} }

var cardUnique = constraintErrors{
	"cards_partner_pan_live_key":       domain.ErrCardAttached,
	"cards.partner_id, cards.pan_hash": domain.ErrCardAttached,
}

// Create implements ports.CardRepository.
func (r *CardRepository) Create(ctx context.Context, c *domain.Card) error {
	m, err := r.toModel(c)
	if err != nil {
		return err
	}
	return createWithEvents(ctx, r.db, m, c, cardUnique)
}

// Get implements ports.CardRepository.
func (r *CardRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Card, error) {
	var m cardModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrCardNotFound, nil)
	}
	return r.load(&m)
}

// liveStatuses are the statuses of a card in use or being attached; issuedLiveStatuses those an
// issued card can be in before it is replaced.
var (
	liveStatuses       = []string{domain.CardActive.String(), domain.CardBlocked.String(), domain.CardUnverified.String()}
	issuedLiveStatuses = []string{domain.CardActive.String(), domain.CardBlocked.String()}
)

// toModel maps the card to its row, the PINFL as its blind index, the phone sealed.
func (r *CardRepository) toModel(c *domain.Card) (*cardModel, error) {
	m := toCardModel(c)
	var err error
	if m.PINFL, err = r.db.blindPINFL(m.PINFL); err != nil {
		return nil, err
	}
	m.Phone, err = r.db.sealField(m.Phone, "cards", "phone", m.ID)
	return m, err
}

// load maps a row to the card, the phone opened.
func (r *CardRepository) load(m *cardModel) (*domain.Card, error) {
	var err error
	if m.Phone, err = r.db.openField(m.Phone, "cards", "phone", m.ID); err != nil {
		return nil, fmt.Errorf("stored card %s: phone: %w", m.ID, err)
	}
	return m.toDomain()
}

// FindLive implements ports.CardRepository.
func (r *CardRepository) FindLive(ctx context.Context, partnerID uuid.UUID, panHashes [][]byte) (*domain.Card, error) {
	var m cardModel
	err := r.db.conn(ctx).Where("partner_id = ? AND pan_hash IN ? AND status IN ?", partnerID, panHashes, liveStatuses).Take(&m).Error
	if err != nil {
		return nil, interpretError(err, domain.ErrCardNotFound, nil)
	}
	return r.load(&m)
}

// ListIssuedLive implements ports.CardRepository.
func (r *CardRepository) ListIssuedLive(ctx context.Context, partnerID uuid.UUID, pinfl string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&cardModel{}).Where("partner_id = ? AND pinfl IN ? AND origin = ? AND status IN ?",
		partnerID, r.db.blindPINFLs(pinfl), domain.CardIssued.String(), issuedLiveStatuses).Order("created_at").Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// Update implements ports.CardRepository.
func (r *CardRepository) Update(ctx context.Context, id uuid.UUID, fn func(c *domain.Card) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrCardNotFound, cardUnique, r.load, r.toModel, fn)
}

type cardOrderModel struct {
	ID           uuid.UUID  `gorm:"column:id;primaryKey"`
	PartnerID    uuid.UUID  `gorm:"column:partner_id"`
	ExternalID   string     `gorm:"column:external_id"`
	Phone        string     `gorm:"column:phone"`
	ClientData   string     `gorm:"column:client_data"`
	Status       string     `gorm:"column:status"`
	Description  string     `gorm:"column:description"`
	IssuerRef    string     `gorm:"column:issuer_ref"`
	CardID       *uuid.UUID `gorm:"column:card_id"`
	Attempts     int        `gorm:"column:attempts"`
	NextRunAt    *time.Time `gorm:"column:next_run_at"`
	UnknownSince *time.Time `gorm:"column:unknown_since"`
	CreatedAt    time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt    time.Time  `gorm:"column:updated_at;autoUpdateTime:false"`
	RequestID    string     `gorm:"column:request_id"`
}

func (cardOrderModel) TableName() string { return "card_orders" }

func toCardOrderModel(o *domain.CardOrder) *cardOrderModel {
	s := o.State()
	m := &cardOrderModel{ID: s.ID, PartnerID: s.PartnerID, ExternalID: s.ExternalID, Phone: s.Phone.String(),
		ClientData: encodeClientData(s.ClientData), Status: s.Status.String(), Description: s.Description,
		IssuerRef: s.IssuerRef, Attempts: s.Attempts, NextRunAt: optTime(s.NextRunAt), UnknownSince: optTime(s.UnknownSince), CreatedAt: s.CreatedAt.UTC(),
		UpdatedAt: s.UpdatedAt.UTC(), RequestID: s.RequestID}
	if s.CardID != uuid.Nil {
		m.CardID = &s.CardID
	}
	return m
}

func (m *cardOrderModel) toDomain() (*domain.CardOrder, error) {
	phone, err1 := domain.ParsePhone(m.Phone)
	status, err2 := domain.ParseCardOrderStatus(m.Status)
	cd, err3 := decodeClientData(m.ClientData)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("stored card order %s: %w", m.ID, err)
	}
	s := domain.CardOrderState{ID: m.ID, PartnerID: m.PartnerID, ExternalID: m.ExternalID, Phone: phone, ClientData: cd,
		Status: status, Description: m.Description, IssuerRef: m.IssuerRef, Attempts: m.Attempts,
		NextRunAt: fromOptTime(m.NextRunAt), UnknownSince: fromOptTime(m.UnknownSince), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		RequestID: m.RequestID}
	if m.CardID != nil {
		s.CardID = *m.CardID
	}
	return domain.RestoreCardOrder(s), nil
}

// toModel maps the order to its row, clientData and the phone sealed.
func (r *CardOrderRepository) toModel(o *domain.CardOrder) (*cardOrderModel, error) {
	m := toCardOrderModel(o)
	var err error
	if m.ClientData, err = r.db.sealText(m.ClientData, "card_orders", m.ID); err != nil {
		return nil, err
	}
	m.Phone, err = r.db.sealField(m.Phone, "card_orders", "phone", m.ID)
	return m, err
}

// load maps a row to the order, clientData and the phone opened.
func (r *CardOrderRepository) load(m *cardOrderModel) (*domain.CardOrder, error) {
	var err error
	if m.ClientData, err = r.db.openText(m.ClientData, "card_orders", m.ID); err != nil {
		return nil, fmt.Errorf("stored card order %s: clientData: %w", m.ID, err)
	}
	if m.Phone, err = r.db.openField(m.Phone, "card_orders", "phone", m.ID); err != nil {
		return nil, fmt.Errorf("stored card order %s: phone: %w", m.ID, err)
	}
	return m.toDomain()
}

// CardOrderRepository implements ports.CardOrderRepository.
type CardOrderRepository struct{ db *DB }

// NewCardOrderRepository returns the repository on db.
func NewCardOrderRepository(db *DB) *CardOrderRepository { return &CardOrderRepository{db: db} }

var cardOrderUnique = constraintErrors{
	"card_orders_partner_external_key":                domain.ErrExternalIDUsed,
	"card_orders.partner_id, card_orders.external_id": domain.ErrExternalIDUsed,
}

// Create implements ports.CardOrderRepository.
func (r *CardOrderRepository) Create(ctx context.Context, o *domain.CardOrder) error {
	m, err := r.toModel(o)
	if err != nil {
		return err
	}
	return createWithEvents(ctx, r.db, m, o, cardOrderUnique)
}

// Get implements ports.CardOrderRepository.
func (r *CardOrderRepository) Get(ctx context.Context, id uuid.UUID) (*domain.CardOrder, error) {
	var m cardOrderModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrCardOrderNotFound, nil)
	}
	return r.load(&m)
}

// Update implements ports.CardOrderRepository. No update changes the partner or the external
// id, so no constraint can refuse one.
func (r *CardOrderRepository) Update(ctx context.Context, id uuid.UUID, fn func(o *domain.CardOrder) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrCardOrderNotFound, nil, r.load, r.toModel, fn)
}

// ListDue implements ports.CardOrderRepository.
func (r *CardOrderRepository) ListDue(ctx context.Context, partners ports.Partners, now time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&cardOrderModel{}).Scopes(ofPartners(partners)).Where("next_run_at IS NOT NULL AND next_run_at <= ?", now.UTC()).
		Order("next_run_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// CountUnknownBefore implements ports.CardOrderRepository.
func (r *CardOrderRepository) CountUnknownBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := r.db.conn(ctx).Model(&cardOrderModel{}).
		Where("unknown_since IS NOT NULL AND unknown_since < ? AND status IN ('NEW', 'IN_PROGRESS')", t.UTC()).Count(&n).Error
	return int(n), interpretError(err, nil, nil)
}

type smsModel struct {
	ID      int64      `gorm:"column:id;primaryKey;autoIncrement"`
	Partner *uuid.UUID `gorm:"column:partner_id"`
	Phone   string     `gorm:"column:phone"`
	Text    string     `gorm:"column:text"`
	Code    string     `gorm:"column:code"`
	Card    string     `gorm:"column:card"`
	SentAt  time.Time  `gorm:"column:sent_at"`
}

func (smsModel) TableName() string { return "sandbox_sms" }

// SMSOutbox implements ports.SMSOutbox on the sandbox_sms table.
type SMSOutbox struct{ db *DB }

// NewSMSOutbox returns the outbox on db.
func NewSMSOutbox(db *DB) *SMSOutbox { return &SMSOutbox{db: db} }

// Add implements ports.SMSOutbox, in the caller's transaction: a message of a request that
// fails is not kept.
func (o *SMSOutbox) Add(ctx context.Context, m ports.SentSMS) error {
	var partner *uuid.UUID
	if m.Partner != uuid.Nil {
		partner = &m.Partner
	}
	return interpretError(o.db.conn(ctx).Create(&smsModel{Partner: partner, Phone: m.Phone.String(), Text: m.Text, Code: m.Code,
		Card: m.Card, SentAt: m.SentAt.UTC()}).Error, nil, nil)
}

// List implements ports.SMSOutbox.
func (o *SMSOutbox) List(ctx context.Context, partner uuid.UUID, phone domain.Phone, limit int) ([]ports.SentSMS, error) {
	var ms []smsModel
	err := o.db.conn(ctx).Where("partner_id = ? AND phone = ?", partner, phone.String()).Order("id DESC").Limit(limit).Find(&ms).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.SentSMS, len(ms))
	for i, m := range ms {
		out[i] = ports.SentSMS{SMS: ports.SMS{Phone: phone, Text: m.Text, Partner: partner, Code: m.Code, Card: m.Card},
			SentAt: m.SentAt.UTC()}
	}
	return out, nil
}
