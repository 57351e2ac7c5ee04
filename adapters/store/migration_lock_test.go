package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
)

// TestANodeWaitsForAnotherNodesMigration: a migration that holds the lock longer than a
// request's lock timeout (5 s) makes a second node wait, not fail; and the connection that
// waited goes back to the pool with a request's lock timeout again.
func TestANodeWaitsForAnotherNodesMigration(t *testing.T) {
	t.Parallel()
	url, _ := storetest.URL(t, store.Postgres)
	ctx := context.Background()
	open := func() *store.DB {
		db, err := store.Open(ctx, store.Config{DatabaseURL: url, MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	first, second := open(), open()
	holding, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- first.WithMigrationLock(ctx, func() error {
			close(holding)
			time.Sleep(6 * time.Second)
			return nil
		})
	}()
	<-holding
	began := time.Now()
	if err := second.WithMigrationLock(ctx, func() error { return nil }); err != nil {
		t.Fatalf("the second node's wait: %v", err)
	}
	if waited := time.Since(began); waited < 5*time.Second {
		t.Fatalf("the second node waited %v: it did not wait for the first", waited)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var timeout string
	if err := second.SQL.QueryRowContext(ctx, "SHOW lock_timeout").Scan(&timeout); err != nil || timeout != "5s" {
		t.Fatalf("the pool's connection after the wait has lock_timeout %q (%v), want a request's 5s", timeout, err)
	}
}
