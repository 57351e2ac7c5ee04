package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/ports"
)

// queryRecorder is a pgx tracer that keeps every statement tiyin sends, with its arguments.
type queryRecorder struct {
	mu    sync.Mutex
	seen  map[string][]any // SQL → the arguments it was first sent with
	order []string
	count int
}

func (r *queryRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.record(d.SQL, d.Args)
	return ctx
}

func (r *queryRecorder) record(sql string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count++
	if r.seen == nil {
		r.seen = map[string][]any{}
	}
	if _, ok := r.seen[sql]; !ok {
		r.seen[sql] = args
		r.order = append(r.order, sql)
	}
}

func (r *queryRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// The statements of a batch (River's, for one) are recorded one by one.
func (r *queryRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (r *queryRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.record(d.SQL, d.Args)
}

func (r *queryRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (r *queryRecorder) statements() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// smallTables hold a handful of rows whatever the traffic: scanning them is the cheapest plan.
var smallTables = map[string]bool{"partners": true, "sandbox_clocks": true, "audit_chain_start": true}

// TestHotQueriesUseIndexes walks every endpoint and background job over PostgreSQL, records
// every statement tiyin sends, and EXPLAINs each with sequential scans priced out of the
// planner: a sequential scan that remains means no index serves the lookup, and the table
// grows with the traffic.
func TestHotQueriesUseIndexes(t *testing.T) {
	rec := &queryRecorder{}
	db := storetest.OpenWith(t, store.Postgres, func(c *store.Config) { c.Tracer = rec })
	h := setupOn(t, db, true)
	ctx := context.Background()

	// Everything a partner does, on every endpoint.
	app, loanID := h.withContract(t, 300_000_000)
	pending := h.register(t)
	h.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": pending, "initiator": "PARTNER"})
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1_000_000))
	h.call(t, "/transfers/account-to-card/confirm", tr.ref())
	h.call(t, "/transfers/check-status", tr.ref())
	h.call(t, "/microloans/applications/info", map[string]any{"applicationId": app})
	h.call(t, "/microloans/applications/find", map[string]any{"externalId": uuid.NewString()})
	h.call(t, "/microloans/info", map[string]any{"applicationId": app})
	h.call(t, "/microloans/schedule", map[string]any{"loanId": loanID})
	chk := h.checkRepayment(t, loanID)
	h.call(t, "/repayment/loans/pay", payParams(chk, "EARLY", 1_000_000))
	h.call(t, "/repayment/loans/status", map[string]any{"requestId": chk.RequestID})
	h.call(t, "/microloans/payments", map[string]any{"loanId": loanID})
	cardID, code := h.attach(t, "8600123456789013", "UZCARD")
	h.call(t, "/cards/attach/confirm", map[string]any{"cardId": cardID, "otpCode": code})
	h.call(t, "/cards/status", map[string]any{"cardId": cardID})
	h.send(t, http.MethodPut, "/cards/status", h.key, map[string]any{"cardId": cardID, "status": "BLOCKED", "reason": "lost"})
	order := h.call(t, "/cards/order", map[string]any{"externalId": "ORD-" + uuid.NewString(), "phoneNumber": "998901234567",
		"clientData": clientData(), "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})
	var o struct{ OrderID string }
	_ = json.Unmarshal(order.Result, &o)
	h.call(t, "/cards/order/info", map[string]any{"orderId": o.OrderID})
	h.call(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"})
	// A replay and a reused id take the idempotency store's other paths.
	id := uuid.NewString()
	h.callAs(t, h.key, id, "/repayment/loans/check", map[string]any{"loanId": loanID})
	h.callAs(t, h.key, id, "/repayment/loans/check", map[string]any{"loanId": loanID})
	// The background: reconcilers, the webhook outbox, the purges.
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "2h"})
	h.reconcile(t)
	events := store.NewEventOutbox(db)
	err := store.NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error { // as the delivery pass claims
		_, err := events.ClaimDue(ctx, ports.Partners{}, time.Now(), time.Minute, 10)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Purge(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewUnitOfWork(db).Purge(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}

	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	statements := slices.Clone(rec.order)
	rec.mu.Unlock()
	explained := 0
	for _, sql := range statements {
		if skipExplain(sql) {
			continue
		}
		var plan []map[string]any
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, rec.seen[sql]...).Scan(&plan); err != nil {
			t.Errorf("EXPLAIN %s: %v", sql, err)
			continue
		}
		explained++
		if testing.Verbose() {
			t.Logf("explained: %.110s", strings.Join(strings.Fields(sql), " "))
		}
		for _, table := range seqScans(plan[0]["Plan"].(map[string]any)) {
			if !smallTables[table] {
				t.Errorf("sequential scan of %s (no index serves it):\n  %s", table, sql)
			}
		}
	}
	// The check itself must see a missing index: nothing indexes applications by phone.
	var plan []map[string]any
	if err := conn.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT * FROM applications WHERE phone = $1`, "998901234567").Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if got := seqScans(plan[0]["Plan"].(map[string]any)); !slices.Equal(got, []string{"applications"}) {
		t.Fatalf("an unindexed lookup shows sequential scans of %v, want [applications]: the check is blind", got)
	}
	if explained < 40 {
		t.Fatalf("only %d statements explained: the walk missed most of tiyin", explained)
	}
	t.Logf("%d distinct statements explained, none scans a growing table sequentially", explained)
}

var dml = regexp.MustCompile(`(?i)^\s*(select|insert|update|delete|with)\b`)

// skipExplain leaves out what has no plan to judge (transaction control, the schema's
// migration) and River's own queries (its tables are River's to index).
func skipExplain(sql string) bool {
	return !dml.MatchString(sql) || strings.Contains(sql, "river_") || strings.Contains(sql, "goose_db_version") ||
		strings.Contains(sql, "pg_catalog") || strings.Contains(sql, "information_schema") ||
		strings.Contains(sql, "/* migration: once */") // a schema change's backfill reads every row, once
}

// seqScans lists the tables a plan reads sequentially.
func seqScans(node map[string]any) []string {
	var out []string
	if node["Node Type"] == "Seq Scan" {
		out = append(out, fmt.Sprint(node["Relation Name"]))
	}
	if kids, ok := node["Plans"].([]any); ok {
		for _, k := range kids {
			out = append(out, seqScans(k.(map[string]any))...)
		}
	}
	return out
}

// TestNoQueryPerItem: what a request reads costs the same number of statements whether its
// loan has one repayment or five, and the SMS outbox one message or five (no N+1 queries).
func TestNoQueryPerItem(t *testing.T) {
	rec := &queryRecorder{}
	db := storetest.OpenWith(t, store.Postgres, func(c *store.Config) { c.Tracer = rec })
	h := setupOn(t, db, true)
	_, loanID := h.withContract(t, 300_000_000)
	reads := []struct {
		path   string
		params map[string]any
	}{
		{"/microloans/payments", map[string]any{"loanId": loanID}},
		{"/microloans/schedule", map[string]any{"loanId": loanID}},
		{"/repayment/loans/check", map[string]any{"loanId": loanID}},
		{"/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"}},
	}
	costs := func() []int {
		var out []int
		for _, r := range reads {
			before := rec.statements()
			if a := h.call(t, r.path, r.params); a.code() != 0 {
				t.Fatalf("%s: %s", r.path, a.Raw)
			}
			out = append(out, rec.statements()-before)
		}
		return out
	}
	more := func() {
		h.call(t, "/repayment/loans/pay", payParams(h.checkRepayment(t, loanID), "EARLY", 1_000_000))
		h.attach(t, "8600"+fmt.Sprintf("%011d", rec.statements())+"9", "UZCARD") // one more SMS to the same phone
	}
	more()
	one := costs()
	for range 4 {
		more()
	}
	five := costs()
	for i, r := range reads {
		if one[i] != five[i] {
			t.Errorf("%s: %d statements with one item, %d with five", r.path, one[i], five[i])
		}
	}
	t.Logf("statements per request (one item → five): %v → %v", one, five)
}
