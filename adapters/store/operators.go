package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The operator console's own tables: operators and their sessions, and maker-checker
// proposals (the audit log is in audit.go).

type operatorModel struct {
	ID           uuid.UUID `gorm:"column:id;primaryKey"`
	Name         string    `gorm:"column:name"`
	Role         string    `gorm:"column:role"`
	PasswordHash string    `gorm:"column:password_hash"`
	MustChange   bool      `gorm:"column:must_change"`
	Disabled     bool      `gorm:"column:disabled"`
	CreatedAt    time.Time `gorm:"column:created_at;autoCreateTime:false"`
	// The access grant awaiting a second admin; GrantRole empty when none.
	GrantRole        string     `gorm:"column:grant_role"`
	GrantNewOperator bool       `gorm:"column:grant_new_operator"`
	GrantRequestedBy string     `gorm:"column:grant_requested_by"`
	GrantAt          *time.Time `gorm:"column:grant_at"`
	// GrantSecondFactor: the grant is a second factor's reset.
	GrantSecondFactor bool   `gorm:"column:grant_second_factor"`
	Language          string `gorm:"column:language"`
	// Who last handed out the password and the second factor, and when.
	PasswordSetBy          string     `gorm:"column:password_set_by"`
	PasswordSetAt          *time.Time `gorm:"column:password_set_at"`
	SecondFactorSetBy      string     `gorm:"column:second_factor_set_by"`
	SecondFactorApprovedBy string     `gorm:"column:second_factor_approved_by"`
	SecondFactorSetAt      *time.Time `gorm:"column:second_factor_set_at"`
}

func (operatorModel) TableName() string { return "operators" }

func operatorRow(o *domain.Operator) operatorModel {
	s := o.State()
	return operatorModel{ID: s.ID, Name: s.Name, Role: string(s.Role), PasswordHash: s.PasswordHash, MustChange: s.MustChange,
		Disabled: s.Disabled, CreatedAt: s.CreatedAt.UTC(), GrantRole: string(s.Grant.Role), GrantNewOperator: s.Grant.NewOperator,
		GrantRequestedBy: s.Grant.RequestedBy, GrantAt: optTime(s.Grant.At), GrantSecondFactor: s.Grant.ResetSecondFactor,
		Language: s.Language, PasswordSetBy: s.PasswordSet.By, PasswordSetAt: optTime(s.PasswordSet.At),
		SecondFactorSetBy: s.SecondFactorSet.By, SecondFactorApprovedBy: s.SecondFactorSet.ApprovedBy,
		SecondFactorSetAt: optTime(s.SecondFactorSet.At)}
}

func (m operatorModel) toDomain() *domain.Operator {
	return domain.RestoreOperator(domain.OperatorState{ID: m.ID, Name: m.Name, Role: domain.Role(m.Role), PasswordHash: m.PasswordHash,
		MustChange: m.MustChange, Disabled: m.Disabled, CreatedAt: m.CreatedAt.UTC(), Grant: domain.Grant{Role: domain.Role(m.GrantRole),
			NewOperator: m.GrantNewOperator, ResetSecondFactor: m.GrantSecondFactor, RequestedBy: m.GrantRequestedBy,
			At: fromOptTime(m.GrantAt)}, Language: m.Language,
		PasswordSet: domain.CredentialSet{By: m.PasswordSetBy, At: fromOptTime(m.PasswordSetAt)},
		SecondFactorSet: domain.CredentialSet{By: m.SecondFactorSetBy, ApprovedBy: m.SecondFactorApprovedBy,
			At: fromOptTime(m.SecondFactorSetAt)}})
}

type sessionModel struct {
	TokenHash  []byte    `gorm:"column:token_hash;primaryKey"`
	OperatorID uuid.UUID `gorm:"column:operator_id"`
	CSRF       string    `gorm:"column:csrf"`
	CreatedAt  time.Time `gorm:"column:created_at;autoCreateTime:false"`
	LastSeenAt time.Time `gorm:"column:last_seen_at"`
	// SecondFactor: the login proved the second factor, or the session enrolled one.
	SecondFactor bool `gorm:"column:second_factor"`
}

func (sessionModel) TableName() string { return "operator_sessions" }

// OperatorRepository implements ports.OperatorRepository.
type OperatorRepository struct{ db *DB }

// NewOperatorRepository returns the repository on db.
func NewOperatorRepository(db *DB) *OperatorRepository { return &OperatorRepository{db: db} }

var operatorUnique = constraintErrors{
	"operators_name_key": domain.ErrOperatorExists,
	"operators.name":     domain.ErrOperatorExists,
}

// Create implements ports.OperatorRepository.
func (r *OperatorRepository) Create(ctx context.Context, o *domain.Operator) error {
	m := operatorRow(o)
	return interpretError(r.db.conn(ctx).Create(&m).Error, nil, operatorUnique)
}

// Get implements ports.OperatorRepository.
func (r *OperatorRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Operator, error) {
	var m operatorModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrOperatorNotFound, nil)
	}
	return m.toDomain(), nil
}

// ByName implements ports.OperatorRepository.
func (r *OperatorRepository) ByName(ctx context.Context, name string) (*domain.Operator, error) {
	var m operatorModel
	if err := r.db.conn(ctx).Where("name = ?", name).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrOperatorNotFound, nil)
	}
	return m.toDomain(), nil
}

// List implements ports.OperatorRepository.
func (r *OperatorRepository) List(ctx context.Context) ([]*domain.Operator, error) {
	var ms []operatorModel
	if err := r.db.conn(ctx).Order("name").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]*domain.Operator, len(ms))
	for i, m := range ms {
		out[i] = m.toDomain()
	}
	return out, nil
}

// Update implements ports.OperatorRepository.
func (r *OperatorRepository) Update(ctx context.Context, id uuid.UUID, fn func(o *domain.Operator) error) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		var m operatorModel
		err := r.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error
		if err != nil {
			return interpretError(err, domain.ErrOperatorNotFound, nil)
		}
		o := m.toDomain()
		if err := fn(o); err != nil {
			return err
		}
		m = operatorRow(o)
		return interpretError(r.db.conn(ctx).Select("role", "password_hash", "must_change", "disabled", "grant_role", "grant_new_operator",
			"grant_requested_by", "grant_at", "grant_second_factor", "language", "password_set_by", "password_set_at",
			"second_factor_set_by", "second_factor_approved_by", "second_factor_set_at").Updates(&m).Error, nil, nil)
	})
}

// CreateSession implements ports.OperatorRepository.
func (r *OperatorRepository) CreateSession(ctx context.Context, s ports.OperatorSession) error {
	m := sessionModel{TokenHash: s.TokenHash, OperatorID: s.OperatorID, CSRF: s.CSRF, CreatedAt: s.CreatedAt.UTC(), LastSeenAt: s.LastSeenAt.UTC(),
		SecondFactor: s.SecondFactor}
	return interpretError(r.db.conn(ctx).Create(&m).Error, nil, nil)
}

// Session implements ports.OperatorRepository.
func (r *OperatorRepository) Session(ctx context.Context, h []byte) (ports.OperatorSession, error) {
	var m sessionModel
	if err := r.db.conn(ctx).Where("token_hash = ?", h).Take(&m).Error; err != nil {
		return ports.OperatorSession{}, interpretError(err, ports.ErrNoSession, nil)
	}
	return ports.OperatorSession{TokenHash: m.TokenHash, OperatorID: m.OperatorID, CSRF: m.CSRF,
		CreatedAt: m.CreatedAt.UTC(), LastSeenAt: m.LastSeenAt.UTC(), SecondFactor: m.SecondFactor}, nil
}

// TouchSession implements ports.OperatorRepository.
func (r *OperatorRepository) TouchSession(ctx context.Context, h []byte, t time.Time) error {
	return interpretError(r.db.conn(ctx).Model(&sessionModel{}).Where("token_hash = ?", h).
		Update("last_seen_at", t.UTC()).Error, nil, nil)
}

// DeleteSessions implements ports.OperatorRepository.
func (r *OperatorRepository) DeleteSessions(ctx context.Context, operatorID uuid.UUID, h []byte) error {
	q := r.db.conn(ctx).Where("operator_id = ?", operatorID)
	if h != nil {
		q = q.Where("token_hash = ?", h)
	}
	return interpretError(q.Delete(&sessionModel{}).Error, nil, nil)
}

// DeleteOtherSessions implements ports.OperatorRepository.
func (r *OperatorRepository) DeleteOtherSessions(ctx context.Context, operatorID uuid.UUID, keep []byte) error {
	return interpretError(r.db.conn(ctx).Where("operator_id = ? AND token_hash <> ?", operatorID, keep).
		Delete(&sessionModel{}).Error, nil, nil)
}

// PurgeSessions implements ports.OperatorRepository.
func (r *OperatorRepository) PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	res := r.db.conn(ctx).Where("last_seen_at < ? OR created_at < ?", idleBefore.UTC(), createdBefore.UTC()).Delete(&sessionModel{})
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

type proposalModel struct {
	ID          uuid.UUID  `gorm:"column:id;primaryKey"`
	Kind        string     `gorm:"column:kind"`
	ObjectID    uuid.UUID  `gorm:"column:object_id"`
	Done        bool       `gorm:"column:done"`
	Ref         string     `gorm:"column:ref"`
	Note        string     `gorm:"column:note"`
	Amount      int64      `gorm:"column:amount"`
	PaymentType string     `gorm:"column:payment_type"`
	Channel     string     `gorm:"column:channel"`
	Months      int        `gorm:"column:months"`
	Status      string     `gorm:"column:status"`
	ProposedBy  uuid.UUID  `gorm:"column:proposed_by"`
	ProposedAt  time.Time  `gorm:"column:proposed_at"`
	DecidedBy   *uuid.UUID `gorm:"column:decided_by"`
	DecidedAt   *time.Time `gorm:"column:decided_at"`
}

func (proposalModel) TableName() string { return "proposals" }

func proposalRow(p *domain.Proposal) proposalModel {
	m := proposalModel{ID: p.ID, Kind: string(p.Kind), ObjectID: p.ObjectID, Done: p.Done, Ref: p.Ref, Note: p.Note,
		Status: string(p.Status), ProposedBy: p.ProposedBy, ProposedAt: p.ProposedAt.UTC(), DecidedAt: optTime(p.DecidedAt),
		Amount: p.Action.Amount, PaymentType: p.Action.PaymentType.String(), Channel: p.Action.Channel.String(),
		Months: p.Action.Months}
	if p.DecidedBy != uuid.Nil {
		by := p.DecidedBy
		m.DecidedBy = &by
	}
	return m
}

func (m proposalModel) toDomain() *domain.Proposal {
	p := &domain.Proposal{ID: m.ID, Kind: domain.ProposalKind(m.Kind), ObjectID: m.ObjectID, Done: m.Done, Ref: m.Ref, Note: m.Note,
		Status: domain.ProposalStatus(m.Status), ProposedBy: m.ProposedBy, ProposedAt: m.ProposedAt.UTC(), DecidedAt: fromOptTime(m.DecidedAt),
		Action: domain.LoanActionTerms{Amount: m.Amount, Months: m.Months}}
	// Unknown names read as none: a resolution stores none.
	p.Action.PaymentType, _ = domain.ParsePaymentType(m.PaymentType)
	p.Action.Channel, _ = domain.ParseChannel(m.Channel)
	if m.DecidedBy != nil {
		p.DecidedBy = *m.DecidedBy
	}
	return p
}

// ProposalRepository implements ports.ProposalRepository.
type ProposalRepository struct{ db *DB }

// NewProposalRepository returns the repository on db.
func NewProposalRepository(db *DB) *ProposalRepository { return &ProposalRepository{db: db} }

var proposalUnique = constraintErrors{
	"proposals_open_object_key": domain.ErrProposalOpen,
	"proposals.object_id":       domain.ErrProposalOpen,
}

type proposalBreakModel struct {
	ProposalID uuid.UUID `gorm:"column:proposal_id;primaryKey"`
	BreakID    uuid.UUID `gorm:"column:break_id;primaryKey"`
}

func (proposalBreakModel) TableName() string { return "proposal_breaks" }

// Create implements ports.ProposalRepository: a proposal covering several breaks, with them.
func (r *ProposalRepository) Create(ctx context.Context, p *domain.Proposal) error {
	m := proposalRow(p)
	return r.db.inTx(ctx, func(ctx context.Context) error {
		if err := interpretError(r.db.conn(ctx).Create(&m).Error, nil, proposalUnique); err != nil || len(p.Breaks) == 0 {
			return err
		}
		rows := make([]proposalBreakModel, len(p.Breaks))
		for i, b := range p.Breaks {
			rows[i] = proposalBreakModel{ProposalID: p.ID, BreakID: b}
		}
		return interpretError(r.db.conn(ctx).CreateInBatches(rows, 500).Error, nil, nil)
	})
}

// withBreaks reads the breaks of the proposals among ps that cover several, one statement.
func (r *ProposalRepository) withBreaks(ctx context.Context, ps []*domain.Proposal) error {
	var ids []uuid.UUID
	byID := map[uuid.UUID]*domain.Proposal{}
	for _, p := range ps {
		if p.Kind.IsBreakWork() {
			ids = append(ids, p.ID)
			byID[p.ID] = p
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var rows []proposalBreakModel
	if err := r.db.conn(ctx).Where("proposal_id IN ?", ids).Order("proposal_id, break_id").Find(&rows).Error; err != nil {
		return interpretError(err, nil, nil)
	}
	for _, row := range rows {
		byID[row.ProposalID].Breaks = append(byID[row.ProposalID].Breaks, row.BreakID)
	}
	return nil
}

// Get implements ports.ProposalRepository.
func (r *ProposalRepository) Get(ctx context.Context, id uuid.UUID) (*domain.Proposal, error) {
	var m proposalModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, interpretError(err, domain.ErrProposalNotFound, nil)
	}
	p := m.toDomain()
	return p, r.withBreaks(ctx, []*domain.Proposal{p})
}

// Update implements ports.ProposalRepository.
func (r *ProposalRepository) Update(ctx context.Context, id uuid.UUID, fn func(p *domain.Proposal) error) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		var m proposalModel
		err := r.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error
		if err != nil {
			return interpretError(err, domain.ErrProposalNotFound, nil)
		}
		p := m.toDomain()
		if err := r.withBreaks(ctx, []*domain.Proposal{p}); err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		m = proposalRow(p)
		return interpretError(r.db.conn(ctx).Select("status", "decided_by", "decided_at").Updates(&m).Error, nil, nil)
	})
}

// List implements ports.ProposalRepository: an object's proposals are those of which it is the
// object, and those covering it among several breaks.
func (r *ProposalRepository) List(ctx context.Context, objectID uuid.UUID, limit int) ([]*domain.Proposal, error) {
	q := r.db.conn(ctx).Order("proposed_at DESC").Limit(limit)
	if objectID == uuid.Nil {
		q = q.Where("status = ?", string(domain.ProposalOpen))
	} else {
		q = q.Where("object_id = ? OR id IN (SELECT proposal_id FROM proposal_breaks WHERE break_id = ?)", objectID, objectID)
	}
	var ms []proposalModel
	if err := q.Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]*domain.Proposal, len(ms))
	for i, m := range ms {
		out[i] = m.toDomain()
	}
	return out, r.withBreaks(ctx, out)
}
