package store

import "context"

// MigrateDownTo and MigrateUp let a test put rows in an older schema and migrate them.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}
