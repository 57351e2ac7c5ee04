package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/tiyin/tiyin/ports"
)

type auditVerificationModel struct {
	ID       int64     `gorm:"column:id;primaryKey;autoIncrement"`
	At       time.Time `gorm:"column:at"`
	Entries  int64     `gorm:"column:entries"`
	Chained  int64     `gorm:"column:chained"`
	LastID   int64     `gorm:"column:last_id"`
	Head     []byte    `gorm:"column:head"`
	BrokenID int64     `gorm:"column:broken_id"`
	Problem  string    `gorm:"column:problem"`
	// EntryID is the verification's own line in the log, and Seal its HMAC; both are empty on
	// the verifications kept before migration 00027.
	EntryID *int64 `gorm:"column:entry_id"`
	Seal    []byte `gorm:"column:seal"`
}

func (auditVerificationModel) TableName() string { return "audit_verifications" }

func (m auditVerificationModel) toVerification() ports.AuditVerification {
	return ports.AuditVerification{At: m.At.UTC(), Entries: m.Entries, Chained: m.Chained, LastID: m.LastID, Head: m.Head,
		BrokenID: m.BrokenID, Problem: m.Problem}
}

// entryID is the verification's line, 0 for none.
func (m *auditVerificationModel) entryID() int64 {
	if m.EntryID == nil {
		return 0
	}
	return *m.EntryID
}

// name says which verification m is, for a problem's text.
func (m *auditVerificationModel) name() string {
	return fmt.Sprintf("verification #%d (of %s)", m.ID, m.At.UTC().Format(time.RFC3339))
}

// verificationSeals are a verification's HMAC under each data key, the current one's first:
// of the previous verification's seal (the first's: the chain start's) and its own fields.
func (l *AuditLog) verificationSeals(prev []byte, m *auditVerificationModel) [][]byte {
	return l.db.Sealer.Blind("audit-verification", hex.EncodeToString(prev), m.At.UTC().Format(time.RFC3339Nano),
		strconv.FormatInt(m.Entries, 10), strconv.FormatInt(m.Chained, 10), strconv.FormatInt(m.LastID, 10), hex.EncodeToString(m.Head),
		strconv.FormatInt(m.BrokenID, 10), m.Problem, strconv.FormatInt(m.entryID(), 10))
}

// SaveVerification implements ports.AuditLog: under the chain's lock, it appends by and keeps
// v with that line's number, sealed on the last sealed verification (or the chain's start).
func (l *AuditLog) SaveVerification(ctx context.Context, v ports.AuditVerification, by ports.AuditEntry) error {
	if l.db.Sealer == nil {
		return errNoSealer
	}
	return l.db.inTx(ctx, func(ctx context.Context) error {
		if err := l.lock(l.db.conn(ctx)); err != nil {
			return err
		}
		prev, err := l.sealBefore(ctx, 0)
		if err != nil {
			return err
		}
		line, err := l.append(ctx, by)
		if err != nil {
			return err
		}
		m := auditVerificationModel{At: v.At.UTC().Truncate(time.Microsecond), Entries: v.Entries, Chained: v.Chained, LastID: v.LastID,
			Head: v.Head, BrokenID: v.BrokenID, Problem: v.Problem, EntryID: &line}
		m.Seal = l.verificationSeals(prev, &m)[0]
		return interpretError(l.db.conn(ctx).Create(&m).Error, nil, nil)
	})
}

// sealBefore is the seal the verification after the sealed ones below id (0: all) chains to:
// the last of them, or the chain start's when there is none (ports.ErrNoAuditStart without a
// start).
func (l *AuditLog) sealBefore(ctx context.Context, id int64) ([]byte, error) {
	q := l.db.conn(ctx).Where("seal IS NOT NULL")
	if id > 0 {
		q = q.Where("id < ?", id)
	}
	var last []auditVerificationModel
	if err := q.Order("id DESC").Limit(1).Find(&last).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if len(last) > 0 {
		return last[0].Seal, nil
	}
	start, err := l.start(ctx)
	if err != nil {
		return nil, err
	}
	if start == nil || start.Seal == nil {
		return nil, ports.ErrNoAuditStart
	}
	return start.Seal, nil
}

// LastVerification implements ports.AuditLog. A verification kept before they were sealed
// comes back as it is; a later one whose seal does not hold, or with no record of where the
// chain began, comes back broken.
func (l *AuditLog) LastVerification(ctx context.Context) (*ports.AuditVerification, error) {
	var ms []auditVerificationModel
	if err := l.db.conn(ctx).Order("id DESC").Limit(1).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	m := &ms[0]
	v := m.toVerification()
	start, err := l.start(ctx)
	if err != nil {
		return nil, err
	}
	unsealed := start == nil || start.Seal == nil
	switch {
	case m.Seal == nil && (unsealed || m.ID <= start.VerificationsLastID):
		return &v, nil
	case unsealed:
		v.BrokenID, v.Problem = 0, ports.ErrNoAuditStart.Error()
		return &v, nil
	}
	prev, err := l.sealBefore(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	if m.Seal == nil || !sealed(l.verificationSeals(prev, m), m.Seal) {
		v.BrokenID, v.Problem = 0, m.name()+" does not match its seal: it was inserted or edited (tiyin audit verify names what changed)"
	}
	return &v, nil
}

// Verify implements ports.AuditLog, in this order: the record of where the chain began, the
// sealed verifications, then the entries one by one (the prefix, each chain, the heads and
// lines of the verifications, the anchor), then what the walk should have met and did not.
// The first problem found is the answer.
func (l *AuditLog) Verify(ctx context.Context, anchor *ports.AuditHead) (ports.AuditVerification, error) {
	if l.db.Sealer == nil {
		return ports.AuditVerification{}, errNoSealer
	}
	c := &auditCheck{l: l, anchor: anchor, prefix: newPrefix(), byLine: map[int64]*auditVerificationModel{},
		byHead: map[int64]*auditVerificationModel{}, seen: map[int64]bool{}}
	err := c.run(ctx)
	return c.v, err
}

// auditCheck is one verification's walk: what it has met so far, and the first problem.
type auditCheck struct {
	l      *AuditLog
	anchor *ports.AuditHead
	v      ports.AuditVerification
	start  *auditStartModel
	prefix *prefix
	// prev is the last chained entry's chain; past is true once the walk is past the prefix.
	prev []byte
	past bool
	// verifications are the sealed ones read before the walk, the last entry's number then in
	// knownUpTo; byLine finds one by its own line, byHead an intact one by the last entry it
	// saw; seen holds the numbers of the lines and heads the walk met.
	verifications []auditVerificationModel
	knownUpTo     int64
	byLine        map[int64]*auditVerificationModel
	byHead        map[int64]*auditVerificationModel
	seen          map[int64]bool
	// late are verification lines past knownUpTo, whose verification may have been kept
	// during the walk.
	late     []int64
	anchored bool
}

// broken records the first problem: the entry it names (0 for none) and what is wrong.
func (c *auditCheck) broken(id int64, format string, args ...any) {
	if c.v.Problem == "" {
		c.v.BrokenID, c.v.Problem = id, fmt.Sprintf(format, args...)
	}
}

func (c *auditCheck) run(ctx context.Context) error {
	var err error
	if c.start, err = c.l.start(ctx); err != nil {
		return err
	}
	switch {
	case c.start == nil:
		c.broken(0, "the record of where the chain began is gone: it was removed")
		return nil
	case c.start.Seal == nil:
		c.broken(0, "%s: the schema was migrated without the data key, or the record's seal emptied", ports.ErrNoAuditStart)
		return nil
	case !sealed(c.l.startSeals(c.start), c.start.Seal):
		c.broken(0, "the record of where the chain began does not match its seal: it was edited or replaced")
		return nil
	}
	if err := c.l.db.conn(ctx).Raw("SELECT COALESCE(MAX(id), 0) FROM audit_log").Scan(&c.knownUpTo).Error; err != nil {
		return interpretError(err, nil, nil)
	}
	if err := c.readVerifications(ctx, 0); err != nil || c.v.Problem != "" {
		return err
	}
	if c.anchor != nil && c.anchor.Seq == 0 && !bytes.Equal(headHash(c.start.Seal, 0, nil), c.anchor.Hash) {
		c.broken(0, "the anchor of the empty log is not this log's: where the chain began changed since the checkpoint")
	}
	if err := c.l.walk(ctx, c.entry); err != nil || c.v.Problem != "" {
		return err
	}
	if !c.past {
		c.checkPrefix()
	}
	return c.missing(ctx)
}

// readVerifications reads the sealed verifications after after (0: all after the chain's
// start) and checks each one's seal on the one before it.
func (c *auditCheck) readVerifications(ctx context.Context, after int64) error {
	prev := c.start.Seal
	if n := len(c.verifications); n > 0 {
		prev = c.verifications[n-1].Seal
	}
	var ms []auditVerificationModel
	err := c.l.db.conn(ctx).Where("id > ?", max(after, c.start.VerificationsLastID)).Order("id").Find(&ms).Error
	if err != nil {
		return interpretError(err, nil, nil)
	}
	for i := range ms {
		m := &ms[i]
		switch {
		case m.Seal == nil:
			c.broken(0, "%s carries no seal, after verifications began to be sealed: it was inserted, or its seal emptied", m.name())
			return nil
		case !sealed(c.l.verificationSeals(prev, m), m.Seal):
			c.broken(0, "%s does not match its seal: it was edited or inserted, or a verification before it removed", m.name())
			return nil
		}
		prev = m.Seal
		c.verifications = append(c.verifications, *m)
	}
	for i := range c.verifications {
		m := &c.verifications[i]
		c.byLine[m.entryID()] = m
		if _, ok := c.byHead[m.LastID]; !ok && m.Problem == "" && m.LastID > 0 {
			c.byHead[m.LastID] = m
		}
	}
	return nil
}

// entry checks one entry, in order (against the prefix or its chain, the head a verification
// saw, the anchor); it stops the walk at the first problem.
func (c *auditCheck) entry(m *auditModel) bool {
	c.v.Entries++
	c.v.LastID, c.v.Head = m.ID, m.Chain
	if m.ID <= c.start.PrefixLastID {
		c.prefix.add(m)
	} else {
		if !c.past {
			c.past = true
			c.checkPrefix()
		}
		c.chained(m)
	}
	if w := c.byHead[m.ID]; w != nil {
		c.seen[m.ID] = true
		if !bytes.Equal(w.Head, m.Chain) {
			c.broken(m.ID, "entry #%d is not the one %s saw", m.ID, w.name())
		}
	}
	if c.anchor != nil && m.ID == c.anchor.Seq {
		c.anchored = true
		if !bytes.Equal(headHash(c.start.Seal, m.ID, m.Chain), c.anchor.Hash) {
			c.broken(m.ID, "entry #%d is not the anchor's: it, an entry before it, or where the chain began changed since the checkpoint", m.ID)
		}
	}
	return c.v.Problem == ""
}

// checkPrefix compares the entries written before the chain began with its record. A hash of
// them all cannot tell which one changed: the record's last entry is named, with the range.
func (c *auditCheck) checkPrefix() {
	s := c.start
	if c.prefix.entries != s.PrefixEntries || !bytes.Equal(c.prefix.sum(), s.PrefixHash) {
		c.broken(s.PrefixLastID, "the entries written before the chain began (up to #%d) are not those recorded when it began "+
			"(%d then, %d now): one was edited, removed or inserted", s.PrefixLastID, s.PrefixEntries, c.prefix.entries)
	}
}

// chained checks an entry after the chain began: its chain and, if it is a verification's
// line, that the verification is there.
func (c *auditCheck) chained(m *auditModel) {
	switch {
	case m.Chain == nil && c.start.PrefixLastID == 0:
		c.broken(m.ID, "entry #%d has no chain, though this log was chained from its first entry: its chain was emptied, or it was inserted", m.ID)
		return
	case m.Chain == nil:
		c.broken(m.ID, "entry #%d has no chain, though every entry after #%d is chained: its chain was emptied, or it was inserted",
			m.ID, c.start.PrefixLastID)
		return
	case !sealed(c.l.chains(c.prev, m), m.Chain):
		c.broken(m.ID, "entry #%d does not match its chain: it was edited, or an entry before it was removed or inserted", m.ID)
		return
	}
	c.prev = m.Chain
	c.v.Chained++
	if m.Action != ports.AuditVerified {
		return
	}
	switch {
	case c.byLine[m.ID] != nil:
		c.seen[m.ID] = true
	case m.ID > c.knownUpTo:
		c.late = append(c.late, m.ID)
	default:
		c.broken(m.ID, "entry #%d is a verification's line, and that verification is gone: it was removed", m.ID)
	}
}

// missing checks, after the walk, what it should have met: the anchor, each verification's
// line and head. A verification kept during the walk is read now, its line checked.
func (c *auditCheck) missing(ctx context.Context) error {
	if c.anchor != nil && c.anchor.Seq > 0 && !c.anchored {
		c.broken(c.anchor.Seq, "entry #%d, the anchor's, is gone: the log was cut back before it", c.anchor.Seq)
		return nil
	}
	known := len(c.verifications)
	for i := range known {
		w := &c.verifications[i]
		switch {
		case !c.seen[w.entryID()]:
			c.broken(w.entryID(), "entry #%d, the line of %s, is gone: the log was cut back before it", w.entryID(), w.name())
			return nil
		case c.byHead[w.LastID] == w && !c.seen[w.LastID]:
			c.broken(w.LastID, "entries up to #%d, which %s saw, are gone", w.LastID, w.name())
			return nil
		}
	}
	if len(c.late) == 0 {
		return nil
	}
	after := c.start.VerificationsLastID
	if known > 0 {
		after = c.verifications[known-1].ID
	}
	if err := c.readVerifications(ctx, after); err != nil || c.v.Problem != "" {
		return err
	}
	for _, id := range c.late {
		if c.byLine[id] == nil {
			c.broken(id, "entry #%d is a verification's line, and that verification is gone: it was removed", id)
			return nil
		}
	}
	return nil
}
