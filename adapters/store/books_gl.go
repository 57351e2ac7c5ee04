package store

import (
	"context"
	"fmt"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// UnpostedClosedDays implements ports.BooksRepository: the days of books_closed_days, of any
// scope, that books_gl_posts has no post of (its key begins with the day).
func (r *BooksRepository) UnpostedClosedDays(ctx context.Context) ([]time.Time, error) {
	var days []string
	err := r.db.conn(ctx).Raw(`SELECT DISTINCT c.day FROM books_closed_days c
		WHERE NOT EXISTS (SELECT 1 FROM books_gl_posts g WHERE g.day = c.day) ORDER BY c.day`).Scan(&days).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]time.Time, 0, len(days))
	for _, d := range days {
		t, err := time.Parse(domain.DateLayout, d)
		if err != nil {
			return nil, fmt.Errorf("books_closed_days day %q: %w", d, err)
		}
		out = append(out, t)
	}
	return out, nil
}
