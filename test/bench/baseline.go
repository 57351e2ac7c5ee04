package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	_ "github.com/glebarez/sqlite" // the driver tiyin's store uses for SQLite
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
)

// startEcho serves the HTTP ceiling: decode the envelope, encode an answer, nothing else.
func startEcho() (base string, stop func()) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/x", func(c echo.Context) error {
		var env struct {
			ID     string          `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&env); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"id": env.ID, "result": map[string]any{"ok": true}, "error": nil})
	})
	return serveLocal(e)
}

// serveLocal serves h on a free loopback port.
func serveLocal(h http.Handler) (base string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }
}

// minimalEnv, when set in the environment, makes this program the minimal info handler (its
// value the database URL) instead of the harness: main serves it and never returns.
const minimalEnv = "TIYIN_BENCH_MINIMAL_DATABASE_URL"

// startMinimal starts the smallest handler that does what an info call must, as a process of
// its own beside tiyin's, so neither shares the load generator's runtime: check the partner's
// key (its SHA-256 against the one known hash), decode the envelope and its applicationId,
// read the application's row by primary key with one pgx query (the columns the answer
// shows), and encode the answer. Issue 34 asks application info to reach 0.80× of it.
func startMinimal(dbURL string, pool int) (base string, pid int, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), minimalEnv+"="+dbURL, fmt.Sprintf("TIYIN_BENCH_MINIMAL_POOL=%d", pool))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("the minimal handler did not start: %w", err)
	}
	return strings.TrimSpace(line), cmd.Process.Pid, stop, nil
}

// serveMinimal is the minimal handler's process: it prints its base URL and serves.
func serveMinimal(dbURL string) error {
	pc, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(os.Getenv("TIYIN_BENCH_MINIMAL_POOL")); err == nil {
		pc.MaxConns = int32(n)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return err
	}
	want := sha256.Sum256([]byte(key))
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/microloans/applications/info", func(c echo.Context) error {
		k, _ := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		if got := sha256.Sum256([]byte(k)); subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return c.JSON(http.StatusUnauthorized, map[string]any{"id": nil, "result": nil, "error": map[string]any{"code": 2}})
		}
		var env struct {
			ID     string `json:"id"`
			Params struct {
				ApplicationID uuid.UUID `json:"applicationId"`
			} `json:"params"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&env); err != nil {
			return err
		}
		var (
			externalID                                         uuid.UUID
			status, stageName, stageStatus, stageErr, stageMsg string
			limit, percent                                     *int64
			months                                             *int32
		)
		if err := pool.QueryRow(c.Request().Context(), "SELECT external_id, status, task_name, task_status, task_error, task_message, "+
			"pre_amount_limit, pre_percent, pre_month_period FROM applications WHERE id = $1", env.Params.ApplicationID).
			Scan(&externalID, &status, &stageName, &stageStatus, &stageErr, &stageMsg, &limit, &percent, &months); err != nil {
			return err
		}
		result := map[string]any{"applicationId": env.Params.ApplicationID, "externalId": externalID, "status": status,
			"lastTask": map[string]any{"name": stageName, "status": stageStatus, "error": stageErr, "message": stageMsg}}
		if limit != nil && percent != nil && months != nil {
			result["preScoreResult"] = map[string]any{"externalId": externalID, "amountLimit": *limit,
				"percent": float64(*percent) / 100, "monthPeriod": *months}
		}
		return c.JSON(http.StatusOK, map[string]any{"id": env.ID, "result": result, "error": nil})
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("http://" + l.Addr().String())
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second}
	return srv.Serve(l)
}

// rawDB is the database ceiling: single-row insert transactions and primary-key selects on a
// table of its own, in the database tiyin uses, with tiyin's pool size.
type rawDB struct {
	pool *pgxpool.Pool // PostgreSQL, through pgx
	sql  *sql.DB       // SQLite, through the store's driver
	ids  []uuid.UUID
	body []byte
}

const rawRows = 10_000

func openRaw(ctx context.Context, dbURL, sqlitePath string, poolSize int, body []byte) (*rawDB, error) {
	r := &rawDB{body: body}
	ddl := "CREATE TABLE bench_raw (id uuid PRIMARY KEY, payload text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())"
	if dbURL != "" {
		pc, err := pgxpool.ParseConfig(dbURL)
		if err != nil {
			return nil, err
		}
		pc.MaxConns = int32(poolSize)
		if r.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
			return nil, err
		}
		if _, err := r.pool.Exec(ctx, ddl); err != nil {
			return nil, err
		}
	} else {
		q := url.Values{}
		for _, p := range []string{"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(NORMAL)"} {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", "immediate")
		db, err := sql.Open("sqlite", "file:"+sqlitePath+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // as the store: one connection
		r.sql = db
		if _, err := db.ExecContext(ctx, "CREATE TABLE bench_raw (id TEXT PRIMARY KEY, payload TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"); err != nil {
			return nil, err
		}
	}
	for range rawRows {
		id := uuid.New()
		if err := r.insert(ctx, id); err != nil {
			return nil, fmt.Errorf("fill bench_raw: %w", err)
		}
		r.ids = append(r.ids, id)
	}
	if r.pool != nil {
		_, _ = r.pool.Exec(ctx, "ANALYZE bench_raw")
	}
	return r, nil
}

// insert is one transaction: BEGIN, one INSERT, COMMIT.
func (r *rawDB) insert(ctx context.Context, id uuid.UUID) error {
	if r.pool != nil {
		return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO bench_raw (id, payload) VALUES ($1, $2)", id, r.body)
			return err
		})
	}
	tx, err := r.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO bench_raw (id, payload) VALUES (?, ?)", id.String(), string(r.body)); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Insert inserts a new row.
func (r *rawDB) Insert(ctx context.Context) error { return r.insert(ctx, uuid.New()) }

// Select reads one row by its primary key.
func (r *rawDB) Select(ctx context.Context) error {
	id := r.ids[rand.IntN(len(r.ids))]
	var payload string
	if r.pool != nil {
		return r.pool.QueryRow(ctx, "SELECT payload FROM bench_raw WHERE id = $1", id).Scan(&payload)
	}
	return r.sql.QueryRowContext(ctx, "SELECT payload FROM bench_raw WHERE id = ?", id.String()).Scan(&payload)
}

// Backlog counts the job queue's work not yet done, so a scenario starts once the last one's
// background work is over.
func (r *rawDB) Backlog(ctx context.Context) (n int64, err error) {
	const q = "SELECT count(*) FROM river_job WHERE state IN ('available', 'running', 'retryable')"
	if r.pool != nil {
		err = r.pool.QueryRow(ctx, q).Scan(&n)
	} else {
		err = r.sql.QueryRowContext(ctx, q).Scan(&n)
	}
	return n, err
}

// Applications counts tiyin's applications; unscored counts only those still NEW or IN_PROGRESS.
func (r *rawDB) Applications(ctx context.Context, unscored bool) (n int64, err error) {
	q := "SELECT count(*) FROM applications"
	if unscored {
		q += " WHERE status IN ('NEW', 'IN_PROGRESS')"
	}
	if r.pool != nil {
		err = r.pool.QueryRow(ctx, q).Scan(&n)
	} else {
		err = r.sql.QueryRowContext(ctx, q).Scan(&n)
	}
	return n, err
}

func (r *rawDB) Close() {
	if r.pool != nil {
		r.pool.Close()
	}
	if r.sql != nil {
		_ = r.sql.Close()
	}
}
