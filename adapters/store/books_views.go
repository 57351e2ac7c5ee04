package store

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BooksViews implements ports.BooksViews: the console's reads of the books, each one statement.
type BooksViews struct {
	db *DB
}

// NewBooksViews returns the reads on db.
func NewBooksViews(db *DB) *BooksViews {
	return &BooksViews{db: db}
}

// Closes implements ports.BooksViews, from the closed days' table (its rows are few: a day a
// scope).
func (v *BooksViews) Closes(ctx context.Context, limit int) ([]ports.ScopeClosedDay, error) {
	var rows []closedDayModel
	err := v.db.conn(ctx).Select("scope", "day", "closed_at", "loans", "postings", "duration_ms").
		Order("day DESC").Order("scope").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.ScopeClosedDay, 0, len(rows))
	for _, r := range rows {
		day, err := time.Parse(domain.DateLayout, r.Day)
		if err != nil {
			return nil, err
		}
		out = append(out, ports.ScopeClosedDay{Scope: r.Scope, Day: day, ClosedDay: ports.ClosedDay{At: r.ClosedAt.UTC(),
			Loans: int(r.Loans), Postings: int(r.Postings), Duration: time.Duration(r.DurationMS) * time.Millisecond}})
	}
	return out, nil
}

// Provisions implements ports.BooksViews: the loans the close still visits (the partial index
// loans_books_open_idx), grouped by the class and summing the provision their books keep.
func (v *BooksViews) Provisions(ctx context.Context) ([]ports.ProvisionSum, error) {
	class, provision := "json_extract(books, '$.Class')", "json_extract(books, '$.Provision')"
	if v.db.Dialect == Postgres {
		class, provision = "(books::jsonb ->> 'Class')", "(books::jsonb ->> 'Provision')::bigint"
	}
	var rows []struct {
		Class     string
		Loans     int64
		Provision int64
	}
	err := v.db.conn(ctx).Raw(`SELECT c.class AS class, COUNT(*) AS loans, COALESCE(SUM(c.provision), 0) AS provision
		FROM (SELECT ` + class + ` AS class, ` + provision + ` AS provision FROM loans WHERE books_open AND books IS NOT NULL) c
		WHERE c.class IS NOT NULL AND c.class <> '' GROUP BY c.class ORDER BY c.class`).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.ProvisionSum, 0, len(rows))
	for _, r := range rows {
		out = append(out, ports.ProvisionSum{Class: r.Class, Loans: int(r.Loans), Provision: r.Provision})
	}
	return out, nil
}
