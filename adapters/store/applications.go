package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

type applicationModel struct {
	ID                      uuid.UUID  `gorm:"column:id;primaryKey"`
	PartnerID               uuid.UUID  `gorm:"column:partner_id"`
	ExternalID              uuid.UUID  `gorm:"column:external_id"`
	Phone                   string     `gorm:"column:phone"`
	PhoneIndex              string     `gorm:"column:phone_index"`
	ClientData              string     `gorm:"column:client_data"`
	Status                  string     `gorm:"column:status"`
	StageName               string     `gorm:"column:task_name"`
	StageStatus             string     `gorm:"column:task_status"`
	StageError              string     `gorm:"column:task_error"`
	StageMessage            string     `gorm:"column:task_message"`
	PreAmountLimit          *int64     `gorm:"column:pre_amount_limit"`
	PrePercent              *int64     `gorm:"column:pre_percent"`
	PreMonthPeriod          *int       `gorm:"column:pre_month_period"`
	OfferAmount             *int64     `gorm:"column:offer_amount"`
	OfferPercent            *int64     `gorm:"column:offer_percent"`
	OfferMonthPeriod        *int       `gorm:"column:offer_month_period"`
	OfferBackupPhone        *string    `gorm:"column:offer_backup_phone"`
	CallCentrePhone         string     `gorm:"column:call_centre_phone"`
	AccountNumber           string     `gorm:"column:account_number"`
	CoreRef                 string     `gorm:"column:core_ref"`
	Attempts                int        `gorm:"column:attempts"`
	NextRunAt               *time.Time `gorm:"column:next_run_at"`
	UnknownSince            *time.Time `gorm:"column:unknown_since"`
	PendingSince            *time.Time `gorm:"column:pending_since"`
	VerificationRequestedAt *time.Time `gorm:"column:verification_requested_at"`
	CreatedAt               time.Time  `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt               time.Time  `gorm:"column:updated_at;autoUpdateTime:false"`
	// PINFLIndex is the client's PINFL as its blind index under the current key: the
	// console's client view finds a person's applications by it.
	PINFLIndex string `gorm:"column:pinfl_index"`
	// RequestID is the partner's request that started the background work (domain.Correlate).
	RequestID string `gorm:"column:request_id"`
}

func (applicationModel) TableName() string { return "applications" }

// clientDataJSON is the stored form of clientData.
type clientDataJSON struct {
	PINFL          string `json:"pinfl"`
	INN            string `json:"inn,omitempty"`
	LastName       string `json:"lastName"`
	FirstName      string `json:"firstName"`
	MiddleName     string `json:"middleName,omitempty"`
	BirthDate      string `json:"birthDate"`
	Gender         string `json:"gender,omitempty"`
	DocumentType   string `json:"documentType"`
	DocumentSeries string `json:"documentSeries"`
	DocumentNumber string `json:"documentNumber"`
	IssuedBy       string `json:"issuedBy"`
	IssuedDate     string `json:"issuedDate"`
	ExpiryDate     string `json:"expiryDate"`
	Region         string `json:"region"`
	District       string `json:"district"`
	Address        string `json:"address"`
	Email          string `json:"email,omitempty"`
	Phone          string `json:"phone"`
}

// toModel maps the application to its row, clientData and phones sealed.
func (r *ApplicationRepository) toModel(a *domain.Application) (*applicationModel, error) {
	m := toApplicationModel(a)
	var err error
	if m.ClientData, err = r.db.sealText(m.ClientData, "applications", m.ID); err != nil {
		return nil, err
	}
	m.PhoneIndex = r.db.PhoneIndexes(m.Phone)[0]
	m.PINFLIndex = r.db.pinflIndex(a.ClientData().PINFL())
	if m.Phone, err = r.db.sealField(m.Phone, "applications", "phone", m.ID); err != nil {
		return nil, err
	}
	if m.OfferBackupPhone != nil {
		backup, err := r.db.sealField(*m.OfferBackupPhone, "applications", "offer_backup_phone", m.ID)
		m.OfferBackupPhone = &backup
		return m, err
	}
	return m, nil
}

// load maps a row to the application, clientData and phones opened.
func (r *ApplicationRepository) load(m *applicationModel) (*domain.Application, error) {
	var err error
	if m.ClientData, err = r.db.openText(m.ClientData, "applications", m.ID); err != nil {
		return nil, fmt.Errorf("stored application %s: clientData: %w", m.ID, err)
	}
	if m.Phone, err = r.db.openField(m.Phone, "applications", "phone", m.ID); err != nil {
		return nil, fmt.Errorf("stored application %s: phone: %w", m.ID, err)
	}
	if m.OfferBackupPhone != nil {
		backup, err := r.db.openField(*m.OfferBackupPhone, "applications", "offer_backup_phone", m.ID)
		if err != nil {
			return nil, fmt.Errorf("stored application %s: backup phone: %w", m.ID, err)
		}
		m.OfferBackupPhone = &backup
	}
	return m.toDomain()
}

// openClientData unseals and decodes the application's stored clientData.
func (db *DB) openClientData(sealed string, applicationID uuid.UUID) (domain.ClientData, error) {
	plain, err := db.openText(sealed, "applications", applicationID)
	if err != nil {
		return domain.ClientData{}, fmt.Errorf("stored application %s: clientData: %w", applicationID, err)
	}
	return decodeClientData(plain)
}

func encodeClientData(c domain.ClientData) string {
	f := c.Fields()
	b, _ := json.Marshal(clientDataJSON{PINFL: f.PINFL, INN: f.INN, LastName: f.LastName,
		FirstName: f.FirstName, MiddleName: f.MiddleName, BirthDate: f.BirthDate, Gender: f.Gender,
		DocumentType: f.DocumentType, DocumentSeries: f.DocumentSeries, DocumentNumber: f.DocumentNumber,
		IssuedBy: f.DocumentIssuedBy, IssuedDate: f.DocumentIssued, ExpiryDate: f.DocumentExpiry,
		Region: f.Region, District: f.District, Address: f.Address, Email: f.Email, Phone: f.Phone})
	return string(b)
}

func decodeClientData(s string) (domain.ClientData, error) {
	var j clientDataJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return domain.ClientData{}, fmt.Errorf("stored clientData: %w", err)
	}
	return domain.RestoreClientData(domain.ClientDataInput{PINFL: j.PINFL, INN: j.INN,
		LastName: j.LastName, FirstName: j.FirstName, MiddleName: j.MiddleName, BirthDate: j.BirthDate,
		Gender: j.Gender, DocumentType: j.DocumentType, DocumentSeries: j.DocumentSeries,
		DocumentNumber: j.DocumentNumber, DocumentIssuedBy: j.IssuedBy, DocumentIssued: j.IssuedDate,
		DocumentExpiry: j.ExpiryDate, Region: j.Region, District: j.District, Address: j.Address,
		Email: j.Email, Phone: j.Phone}), nil
}

func toApplicationModel(a *domain.Application) *applicationModel {
	s := a.State()
	m := &applicationModel{
		ID: s.ID, PartnerID: s.PartnerID, ExternalID: s.ExternalID, Phone: s.Phone.String(),
		ClientData: encodeClientData(s.ClientData), Status: s.Status.String(),
		StageName: s.Stage.Name.String(), StageStatus: s.Stage.Status.String(),
		StageError: s.Stage.Error.String(), StageMessage: s.Stage.Message,
		CallCentrePhone: s.CallCentrePhone, AccountNumber: s.AccountNumber, CoreRef: s.CoreRef, RequestID: s.RequestID,
		Attempts: s.Attempts, NextRunAt: optTime(s.NextRunAt), UnknownSince: optTime(s.UnknownSince), PendingSince: optTime(s.PendingSince),
		VerificationRequestedAt: optTime(s.VerificationRequestedAt),
		CreatedAt:               s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
	}
	if p := s.PreScore; p != nil {
		limit, pct, months := p.AmountLimit, p.Percent.Hundredths(), p.MonthPeriod
		m.PreAmountLimit, m.PrePercent, m.PreMonthPeriod = &limit, &pct, &months
	}
	if o := s.Offer; o != nil {
		amount, pct, months, phone := o.Amount.Tiyin(), o.Percent.Hundredths(), o.MonthPeriod, o.BackupPhone.String()
		m.OfferAmount, m.OfferPercent, m.OfferMonthPeriod, m.OfferBackupPhone = &amount, &pct, &months, &phone
	}
	return m
}

func (m *applicationModel) toDomain() (*domain.Application, error) {
	var errs []error
	collect := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	sum, err := m.summary()
	collect(err)
	cd, err := decodeClientData(m.ClientData)
	collect(err)
	phone, err := domain.ParsePhone(m.Phone)
	collect(err)
	s := domain.ApplicationState{
		ID: m.ID, PartnerID: m.PartnerID, ExternalID: m.ExternalID, Phone: phone, ClientData: cd,
		Status: sum.Status, Stage: sum.Stage, PreScore: sum.PreScore,
		CallCentrePhone: m.CallCentrePhone, AccountNumber: m.AccountNumber, CoreRef: m.CoreRef, RequestID: m.RequestID,
		Attempts: m.Attempts, NextRunAt: fromOptTime(m.NextRunAt), UnknownSince: fromOptTime(m.UnknownSince), PendingSince: fromOptTime(m.PendingSince),
		VerificationRequestedAt: fromOptTime(m.VerificationRequestedAt),
		CreatedAt:               m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
	if m.OfferAmount != nil && m.OfferPercent != nil && m.OfferMonthPeriod != nil && m.OfferBackupPhone != nil {
		pct, err := domain.PercentFromHundredths(*m.OfferPercent)
		collect(err)
		backup, err := domain.ParsePhone(*m.OfferBackupPhone)
		collect(err)
		s.Offer = &domain.Offer{Amount: domain.Amount(*m.OfferAmount), Percent: pct, MonthPeriod: *m.OfferMonthPeriod, BackupPhone: backup}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("stored application %s is corrupt: %v", m.ID, errs)
	}
	return domain.RestoreApplication(s), nil
}

// summary restores the summary's columns of m.
func (m *applicationModel) summary() (domain.ApplicationSummary, error) {
	status, err1 := domain.ParseApplicationStatus(m.Status)
	name, err2 := domain.ParseStageName(m.StageName)
	stageStatus, err3 := domain.ParseStageStatus(m.StageStatus)
	stageErr, err4 := domain.ParseStageError(m.StageError)
	s := domain.ApplicationSummary{ID: m.ID, PartnerID: m.PartnerID, ExternalID: m.ExternalID, Status: status,
		Stage: domain.Stage{Name: name, Status: stageStatus, Error: stageErr, Message: m.StageMessage}}
	var err5 error
	if m.PreAmountLimit != nil && m.PrePercent != nil && m.PreMonthPeriod != nil {
		var pct domain.Percent
		pct, err5 = domain.PercentFromHundredths(*m.PrePercent)
		s.PreScore = &domain.PreScoreResult{AmountLimit: *m.PreAmountLimit, Percent: pct, MonthPeriod: *m.PreMonthPeriod}
	}
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return domain.ApplicationSummary{}, fmt.Errorf("stored application %s is corrupt: %w", m.ID, err)
	}
	return s, nil
}

// ApplicationRepository implements ports.ApplicationRepository.
type ApplicationRepository struct{ db *DB }

// NewApplicationRepository returns the repository on db.
func NewApplicationRepository(db *DB) *ApplicationRepository { return &ApplicationRepository{db: db} }

var applicationUnique = constraintErrors{
	"applications_partner_external_key":                 domain.ErrExternalIDUsed,
	"applications.partner_id, applications.external_id": domain.ErrExternalIDUsed,
}

// Create implements ports.ApplicationRepository. An externalId the partner used before is
// refused naming the application that has it: the insert skips a row that meets the partner's
// (partner_id, external_id) key, so the transaction stays usable and the one read that names
// the holder runs only then (a racing registration's row is seen once it commits).
func (r *ApplicationRepository) Create(ctx context.Context, a *domain.Application) error {
	m, err := r.toModel(a)
	if err != nil {
		return err
	}
	return r.db.inTx(ctx, func(ctx context.Context) error {
		var inserted int64
		skipUsed := clause.OnConflict{Columns: []clause.Column{{Name: "partner_id"}, {Name: "external_id"}}, DoNothing: true}
		if err := r.db.write(ctx, false, func(g *gorm.DB) *gorm.DB { return g.Clauses(skipUsed).Create(m) },
			func(rows int64, err error) error { inserted = rows; return interpretError(err, nil, applicationUnique) }); err != nil {
			return err
		}
		if inserted == 0 {
			used, err := r.SummaryByExternalID(ctx, a.PartnerID(), a.ExternalID())
			if err != nil {
				return err
			}
			return domain.ExternalIDUsedError{ApplicationID: used.ID}
		}
		return insertEvents(ctx, r.db, takeEvents(a))
	})
}

// Get implements ports.ApplicationRepository. On PostgreSQL outside a transaction (the
// partner's info call, the hottest read) the row is read with one pgx query on the pool: a CPU
// profile of the info call under load put 40 % of its time in GORM's statement processing and
// database/sql, twice the time of the query itself (docs/performance.md). Inside a unit of
// work it reads through the transaction, as every statement does.
func (r *ApplicationRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Application, error) {
	var m applicationModel
	if err := r.read(ctx, id, applicationColumns, &m, m.fields()); err != nil {
		return nil, err
	}
	return r.load(&m)
}

// Summary implements ports.ApplicationRepository: the columns application info shows, so none
// of the sealed personal data is read or opened.
func (r *ApplicationRepository) Summary(ctx context.Context, id uuid.UUID) (domain.ApplicationSummary, error) {
	var m applicationModel
	if err := r.read(ctx, id, summaryColumns, &m, m.summaryFields()); err != nil {
		return domain.ApplicationSummary{}, err
	}
	return m.summary()
}

// SummaryByExternalID implements ports.ApplicationRepository: by the partner's unique
// (partner_id, external_id) key, so another partner's application is never read.
func (r *ApplicationRepository) SummaryByExternalID(ctx context.Context, partnerID, externalID uuid.UUID) (domain.ApplicationSummary, error) {
	var m applicationModel
	err := r.db.conn(ctx).Select(summaryColumns).
		Where("partner_id = ? AND external_id = ?", partnerID, externalID).Take(&m).Error
	if err != nil {
		return domain.ApplicationSummary{}, interpretError(err, domain.ErrApplicationNotFound, nil)
	}
	return m.summary()
}

// read reads the application's columns into m (fields: m's fields in their order). Outside a transaction on PostgreSQL it
// is one pgx query on the pool: GORM's statement processing cost twice the query on the
// info path (docs/performance.md). Inside a unit of work it reads through the transaction.
func (r *ApplicationRepository) read(ctx context.Context, id uuid.UUID, columns string, m *applicationModel, fields []any) error {
	if r.db.Pool != nil && stateFrom(ctx) == nil {
		// pgtype.UUID is encoded as it is; a uuid.UUID would go through its driver.Valuer.
		err := r.db.Pool.QueryRow(ctx, "SELECT "+columns+" FROM applications WHERE id = $1",
			pgtype.UUID{Bytes: id, Valid: true}).Scan(fields...)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrApplicationNotFound
		}
		if err != nil {
			return interpretError(err, nil, nil)
		}
		return nil
	}
	if err := r.db.conn(ctx).Select(columns).Where("id = ?", id).Take(m).Error; err != nil {
		return interpretError(err, domain.ErrApplicationNotFound, nil)
	}
	return nil
}

// applicationColumns are applicationModel's columns in the order of its fields.
const applicationColumns = "id, partner_id, external_id, phone, phone_index, client_data, status, task_name, task_status, " +
	"task_error, task_message, pre_amount_limit, pre_percent, pre_month_period, offer_amount, offer_percent, " +
	"offer_month_period, offer_backup_phone, call_centre_phone, account_number, core_ref, attempts, next_run_at, " +
	"unknown_since, pending_since, verification_requested_at, created_at, updated_at, pinfl_index, request_id"

// summaryColumns are the columns of an application's summary, in summaryFields' order.
const summaryColumns = "id, partner_id, external_id, status, task_name, task_status, task_error, task_message, " +
	"pre_amount_limit, pre_percent, pre_month_period"

func (m *applicationModel) summaryFields() []any {
	return []any{&m.ID, &m.PartnerID, &m.ExternalID, &m.Status, &m.StageName, &m.StageStatus, &m.StageError, &m.StageMessage,
		&m.PreAmountLimit, &m.PrePercent, &m.PreMonthPeriod}
}

// fields are m's fields in applicationColumns' order, for a scan.
func (m *applicationModel) fields() []any {
	return []any{&m.ID, &m.PartnerID, &m.ExternalID, &m.Phone, &m.PhoneIndex, &m.ClientData, &m.Status, &m.StageName,
		&m.StageStatus, &m.StageError, &m.StageMessage, &m.PreAmountLimit, &m.PrePercent, &m.PreMonthPeriod, &m.OfferAmount,
		&m.OfferPercent, &m.OfferMonthPeriod, &m.OfferBackupPhone, &m.CallCentrePhone, &m.AccountNumber, &m.CoreRef,
		&m.Attempts, &m.NextRunAt, &m.UnknownSince, &m.PendingSince, &m.VerificationRequestedAt, &m.CreatedAt, &m.UpdatedAt,
		&m.PINFLIndex, &m.RequestID}
}

// Update implements ports.ApplicationRepository. No update changes the partner or the
// external id, so no constraint can refuse one.
func (r *ApplicationRepository) Update(ctx context.Context, id uuid.UUID, fn func(a *domain.Application) error) error {
	return lockedUpdate(ctx, r.db, id, domain.ErrApplicationNotFound, nil, r.load, r.toModel, fn)
}

// ListDue implements ports.ApplicationRepository.
func (r *ApplicationRepository) ListDue(ctx context.Context, partners ports.Partners, now time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&applicationModel{}).Scopes(ofPartners(partners)).
		Where("next_run_at IS NOT NULL AND next_run_at <= ?", now.UTC()).
		Order("next_run_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// ListPendingBefore implements ports.ApplicationRepository.
func (r *ApplicationRepository) ListPendingBefore(ctx context.Context, partners ports.Partners, t time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&applicationModel{}).Scopes(ofPartners(partners)).
		Where("status = 'PENDING' AND pending_since < ?", t.UTC()).
		Order("pending_since").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// ListAwaitingCall implements ports.ApplicationRepository.
func (r *ApplicationRepository) ListAwaitingCall(ctx context.Context, partners ports.Partners, t time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := r.db.conn(ctx).Model(&applicationModel{}).Scopes(ofPartners(partners)).
		Where("status = 'PENDING' AND task_name = 'CLIENT_VERIFICATION' AND task_status = 'PENDING' AND verification_requested_at < ?", t.UTC()).
		Order("verification_requested_at").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

// CountUnknownBefore implements ports.ApplicationRepository.
func (r *ApplicationRepository) CountUnknownBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := r.db.conn(ctx).Model(&applicationModel{}).
		Where("unknown_since IS NOT NULL AND unknown_since < ? AND status = 'IN_PROGRESS'", t.UTC()).Count(&n).Error
	return int(n), interpretError(err, nil, nil)
}
