package console_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
	"golang.org/x/crypto/bcrypt"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/test/testkit"
)

// statementCounter is a pgx tracer that counts the statements sent and keeps the slowest of
// them, so a page over its budget names what made it slow.
type statementCounter struct {
	n       atomic.Int64
	mu      sync.Mutex
	slowest time.Duration
	slowSQL string
}

type startKey struct{}

type started struct {
	at  time.Time
	sql string
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return context.WithValue(ctx, startKey{}, started{time.Now(), d.SQL})
}

func (c *statementCounter) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	s, ok := ctx.Value(startKey{}).(started)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := time.Since(s.at); d > c.slowest {
		c.slowest, c.slowSQL = d, s.sql
	}
}

// takeSlowest returns and forgets the slowest statement since the last call.
func (c *statementCounter) takeSlowest() (time.Duration, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, sql := c.slowest, c.slowSQL
	c.slowest, c.slowSQL = 0, ""
	return d, strings.Join(strings.Fields(sql), " ")
}

// pageBudget is the server time a console page may take (issue 23: 50 ms with 100 000
// applications and their loans in PostgreSQL).
const pageBudget = 50 * time.Millisecond

// reportBudget is the server time of a report over the whole portfolio (an aggregate of every
// loan and its account, read now and then), with 100 000 loans.
const reportBudget = 250 * time.Millisecond

// budgetApplications is how many applications (each with its loan, accounts and issuance
// posting) the test stores; TIYIN_CONSOLE_BENCH_APPS changes it.
func budgetApplications() int {
	if n, err := strconv.Atoi(os.Getenv("TIYIN_CONSOLE_BENCH_APPS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// TestConsolePagesWithinBudget times every console page on PostgreSQL holding 100 000
// applications with their loans: the median of 7 requests of each page must stay within 50 ms
// of server time, and each page's statement count must not grow with the rows it shows.
func TestConsolePagesWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: the console's page budget seeds 100 000 applications")
	}
	counter := &statementCounter{}
	db := storetest.OpenWith(t, store.Postgres, func(c *store.Config) { c.Tracer = counter })
	ctx := context.Background()
	e := newEnv(t, db)

	// One real loan, written by the repositories, then cloned in SQL with fresh ids.
	a := e.issuedApplication(t)
	loan, err := e.loans.GetByApplication(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	n := budgetApplications()
	started := time.Now()
	seed := []string{
		`INSERT INTO applications SELECT (jsonb_populate_record(a, jsonb_build_object('id', md5('a' || i)::uuid,
		   'external_id', md5('e' || i)::uuid, 'status', CASE WHEN i % 10 = 0 THEN 'IN_PROGRESS' ELSE a.status END,
		   'next_run_at', CASE WHEN i % 10 = 0 THEN now() - interval '1 hour' END,
		   'updated_at', now() - (i || ' seconds')::interval, 'created_at', now() - (i || ' seconds')::interval))).*
		 FROM applications a, generate_series(1, $2::int) i WHERE a.id = $1`,
		`INSERT INTO loans SELECT (jsonb_populate_record(l, jsonb_build_object('id', md5('l' || i)::uuid,
		   'application_id', md5('a' || i)::uuid, 'contract_number', 'BENCH' || i,
		   'issued_at', now() - (i || ' seconds')::interval, 'amount', 100000000 + (i % 4000)::bigint * 1000000))).*
		 FROM loans l, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_accounts (key, kind, loan_id, balance)
		 SELECT replace(x.key, x.loan_id::text, md5('l' || i)::uuid::text), x.kind, md5('l' || i)::uuid, x.balance
		 FROM ledger_accounts x JOIN loans l ON l.id = x.loan_id, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_postings (id, kind, ref, created_at)
		 SELECT md5('p' || i)::uuid, p.kind, md5('l' || i)::uuid, p.created_at FROM ledger_postings p JOIN loans l ON l.id = p.ref,
		 generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_entries (posting_id, account_key, debit, credit)
		 SELECT md5('p' || i)::uuid, replace(e.account_key, l.id::text, md5('l' || i)::uuid::text), e.debit, e.credit
		 FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id JOIN loans l ON l.id = p.ref,
		 generate_series(1, $2::int) i WHERE l.application_id = $1`,
		// As many reconciliation breaks over the last 30 days, one in ten still open (a team far
		// behind: the issue's had 244), in two networks and two kinds.
		`INSERT INTO reconciliation_breaks (id, day, last_day, network, kind, line_id, line_kind, our_amount, our_status, our_at,
		   status, found_at, run_id)
		 SELECT md5('b' || i)::uuid, date_trunc('day', now()) - (i % 30 || ' days')::interval,
		   date_trunc('day', now()) - (i % 30 || ' days')::interval, CASE WHEN i / 10 % 2 = 0 THEN 'UZCARD' ELSE 'HUMO' END,
		   CASE WHEN i / 20 % 5 = 0 THEN 'AMOUNT_DIFFERS' ELSE 'MISSING_AT_NETWORK' END, md5('b' || i) || ':CREDIT', 'CREDIT', 100000 + i,
		   'DONE', now() - (i || ' seconds')::interval, CASE WHEN i % 10 = 0 THEN 'OPEN' ELSE 'EXPLAINED' END,
		   now() - (i || ' seconds')::interval, md5('r' || i / 1000)::uuid
		 FROM generate_series(1, $2::int) i WHERE $1::uuid IS NOT NULL`,
		// The collections queues need overdue loans: the clones fall due up to 150 days earlier.
		`UPDATE loans SET first_unpaid_due = first_unpaid_due - ((abs(hashtext(id::text)) % 150) || ' days')::interval
		 WHERE contract_number LIKE 'BENCH%' AND $1::uuid IS NOT NULL AND $2::int > 0`,
	}
	for _, q := range seed {
		if err := db.Gorm.Exec(q, a.ID(), n).Error; err != nil {
			t.Fatalf("seed: %v\n%s", err, q)
		}
	}
	// The loans' update above left every row twice in the heap: a table loaded once holds each
	// once, and only VACUUM FULL gives the space back (a plain vacuum leaves the pages, which
	// every scan of the loans then reads twice).
	if err := db.Gorm.Exec("VACUUM FULL loans").Error; err != nil {
		t.Fatal(err)
	}
	// A database in service is vacuumed by autovacuum; a freshly loaded one is not yet.
	if err := db.Gorm.Exec("VACUUM ANALYZE").Error; err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d applications with their loans, accounts and postings in %v", n, time.Since(started).Round(time.Millisecond))

	// A page half-way down the lists: keyset paging must cost there what it costs on the first.
	var mid struct {
		CreatedAt time.Time
		ID        uuid.UUID
	}
	if err := db.Gorm.Raw("SELECT created_at, id FROM applications ORDER BY created_at DESC, id DESC OFFSET ? LIMIT 1", n/2).Scan(&mid).Error; err != nil {
		t.Fatal(err)
	}
	deep := fmt.Sprintf("%d.0.%s", mid.CreatedAt.UnixMicro(), mid.ID)
	var midBreak struct {
		FoundAt time.Time
		ID      uuid.UUID
	}
	if err := db.Gorm.Raw("SELECT found_at, id FROM reconciliation_breaks WHERE status = 'OPEN' ORDER BY found_at DESC, id DESC OFFSET ? LIMIT 1", n/20).
		Scan(&midBreak).Error; err != nil {
		t.Fatal(err)
	}
	deepBreak := fmt.Sprintf("%d.%s", midBreak.FoundAt.UnixNano(), midBreak.ID)
	handler, cookie := e.console(t)
	// A tenth of the loans is alice's to collect (her queue).
	if err := db.Gorm.Exec(`INSERT INTO collection_assignments (loan_id, collector_id, assigned_at)
		SELECT l.id, o.id, now() FROM loans l, operators o WHERE o.name = 'alice' AND abs(hashtext(l.id::text)) % 10 = 0`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Gorm.Exec("ANALYZE collection_assignments").Error; err != nil {
		t.Fatal(err)
	}
	counter.takeSlowest()
	loginWithinBudget(t, e, handler, counter)
	pages := []struct {
		path    string
		minRows int // rows the page shows at least: its statement count must not depend on them
	}{
		{"/console/", 50},
		{"/console/search?q=" + a.ID().String(), 0},
		{"/console/search?q=" + a.Phone().String(), 50},
		{"/console/search?q=" + a.ExternalID().String(), 0},
		{"/console/applications/" + a.ID().String(), 0},
		{"/console/loans/" + loan.ID().String(), 12},
		{"/console/ledger", 0},
		{"/console/ledger?account=DEMAND:" + loan.ID().String(), 0},
		{"/console/partners", 0},
		{"/console/partners/acme", 0},
		{"/console/audit", 0},
		{"/console/audit?operator=alice", 0},
		{"/console/applications", 50},
		{"/console/applications?after=" + deep, 50},
		{"/console/applications?status=IN_PROGRESS", 50},
		{"/console/applications?status=COMPLETED&partner=acme&from=2020-01-01", 50},
		{"/console/loans?status=OPEN", 50},
		{"/console/loans?sort=amount&order=asc", 50},
		{"/console/loans?partner=acme&min=1500000&max=2500000", 50},
		{"/console/loans?status=OPEN&overdue=30", 0},
		{"/console/reports", 0},
		{"/console/books", 6},
		{"/console/reconciliation", 100},
		{"/console/reconciliation?after=" + deepBreak, 100},
		{"/console/reconciliation?before=" + deepBreak, 100},
		{"/console/reconciliation?source=HUMO&kind=AMOUNT_DIFFERS", 50},
		{"/console/reconciliation?status=ALL&source=UZCARD", 100},
		{"/console/collections", 50},
		{"/console/collections?bucket=1", 50},
		{"/console/collections?bucket=3&view=mine", 50},
		{"/console/collections?view=unassigned", 50},
		{"/console/collections/loans/" + loan.ID().String(), 0},
		{"/console/clients/" + hex.EncodeToString(db.Sealer.Blind("pinfl", a.ClientData().PINFL())[0]), 200},
	}
	const maxStatements = 12
	for _, p := range pages {
		times := make([]time.Duration, 7)
		var (
			statements int64
			rows       int
		)
		for i := range times {
			req := httptest.NewRequest(http.MethodGet, p.path, nil)
			req.AddCookie(cookie)
			rec := httptest.NewRecorder()
			before := counter.n.Load()
			t0 := time.Now()
			handler.ServeHTTP(rec, req)
			times[i] = time.Since(t0)
			statements = counter.n.Load() - before
			if rec.Code != http.StatusOK && rec.Code != http.StatusSeeOther {
				t.Fatalf("%s: %d\n%s", p.path, rec.Code, rec.Body)
			}
			rows = strings.Count(rec.Body.String(), "<tr")
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		median := times[len(times)/2]
		slowest, sql := counter.takeSlowest()
		t.Logf("%-70s median %6.1f ms (min %5.1f, max %5.1f), %d statements, slowest %.1f ms: %.90s", p.path, ms(median), ms(times[0]),
			ms(times[len(times)-1]), statements, ms(slowest), sql)
		budget := pageBudget
		if strings.HasPrefix(p.path, "/console/reports") || strings.HasPrefix(p.path, "/console/books") {
			budget = reportBudget
		}
		if median > budget {
			t.Errorf("%s: median %v of server time, over the %v budget", p.path, median, budget)
		}
		if rows < p.minRows {
			t.Errorf("%s shows %d table rows, want at least %d: the statement count is measured on a full page", p.path, rows, p.minRows)
		}
		if statements > maxStatements {
			t.Errorf("%s: %d statements for one page (at most %d: a query per row would show here)", p.path, statements, maxStatements)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loginWithinBudget times the login form's answer (password and second factor checked, a
// session and an audit line written): 7 logins, one with a TOTP code and six with recovery
// codes (a TOTP step's code logs in once, and the next comes 30 s later). The password's bcrypt
// comparison is slow on purpose, so the budget holds what the login does besides it: its median
// less bcrypt's own time must stay within pageBudget, in at most maxStatements statements.
func loginWithinBudget(t *testing.T, e *env, h http.Handler, counter *statementCounter) {
	t.Helper()
	const maxStatements = 12
	o := e.enrolled(t, "lola", domain.RoleOfficer)
	codes := []string{o.app.Code()}
	for _, c := range o.recovery[:6] {
		codes = append(codes, c.String())
	}
	times := make([]time.Duration, len(codes))
	var statements int64
	for i, code := range codes {
		v := newVisitor(t, h, "10.9.0.1")
		form := v.do(http.MethodGet, "/console/login", nil).Body.String()
		token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)[1]
		before := counter.n.Load()
		t0 := time.Now()
		rec := v.do(http.MethodPost, "/console/login", url.Values{"csrf": {token}, "name": {o.name}, "password": {o.password}, "code": {code}})
		times[i] = time.Since(t0)
		statements = max(statements, counter.n.Load()-before)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/console/" {
			t.Fatalf("login %d: %d %s\n%s", i, rec.Code, rec.Header().Get("Location"), rec.Body)
		}
	}
	bcryptTimes := make([]time.Duration, 7)
	hash, _ := bcrypt.GenerateFromPassword([]byte(o.password), bcrypt.DefaultCost)
	for i := range bcryptTimes {
		t0 := time.Now()
		_ = bcrypt.CompareHashAndPassword(hash, []byte(o.password))
		bcryptTimes[i] = time.Since(t0)
	}
	totp := times[0]
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	sort.Slice(bcryptTimes, func(i, j int) bool { return bcryptTimes[i] < bcryptTimes[j] })
	median, bcryptMedian := times[len(times)/2], bcryptTimes[len(bcryptTimes)/2]
	slowest, sql := counter.takeSlowest()
	t.Logf("%-70s median %6.1f ms (with a TOTP code %.1f ms), bcrypt alone %.1f ms, so %.1f ms besides it; at most %d statements, slowest %.1f ms: %.90s",
		"POST /console/login", ms(median), ms(totp), ms(bcryptMedian), ms(median-bcryptMedian), statements, ms(slowest), sql)
	if median-bcryptMedian > pageBudget {
		t.Errorf("the login takes %v besides its bcrypt comparison, over the %v budget", median-bcryptMedian, pageBudget)
	}
	if statements > maxStatements {
		t.Errorf("the login sends %d statements (at most %d)", statements, maxStatements)
	}
}

// env is the console on a real database, with one partner and one logged-in officer.
type env struct {
	db    *store.DB
	app   *application.App
	uc    appconsole.Console
	loans *store.LoanRepository
	apps  *store.ApplicationRepository
	pid   uuid.UUID
	// clock is the app's: moving a partner's time moves what the console shows of its loans.
	clock *store.SandboxClock
}

type noQueue struct{}

func (noQueue) EnqueueApplications(context.Context, ...uuid.UUID) error { return nil }

func newEnv(t *testing.T, db *store.DB) *env {
	t.Helper()
	e := &env{db: db, loans: store.NewLoanRepository(db), apps: store.NewApplicationRepository(db), clock: store.NewSandboxClock(db)}
	testkit.Build(t, []testkit.Option{testkit.Swap(db), testkit.Swap(e.clock), testkit.Swap[ports.WorkQueue](noQueue{}),
		testkit.Swap[ports.Sealer](storetest.Sealer), testkit.Swap(application.Config{})}, &e.app, &e.uc)
	p, err := e.app.Partners.CreatePartner.Handle(context.Background(), application.CreatePartner{Name: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	e.pid = p.Partner.ID
	return e
}

// offered creates an application and walks it through pre-scoring and the client's offer,
// through the repositories, as the workers would; with call, the bank asks for a phone call,
// and the application waits for it. It returns the application, its client data, the time it
// was walked at, and the step to go on with.
func (e *env) offered(t *testing.T, call bool) (*domain.Application, domain.ClientData, time.Time,
	func(func(a *domain.Application) error)) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Add(-48 * time.Hour)
	phone, _ := domain.ParsePhone("998935550303")
	cd, err := domain.ParseClientData(domain.ClientDataInput{PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567", DocumentIssuedBy: "Toshkent IIB",
		DocumentIssued: "2020-01-10", DocumentExpiry: "2035-01-09", Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1",
		Phone: "998935550303"}, domain.BusinessDate(now))
	if err != nil {
		t.Fatal(err)
	}
	a, err := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: e.pid, ExternalID: uuid.New(), Phone: phone,
		ClientData: cd, AgreementAccepted: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.apps.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	step := func(fn func(a *domain.Application) error) {
		t.Helper()
		if err := e.apps.Update(ctx, a.ID(), fn); err != nil {
			t.Fatal(err)
		}
	}
	run := func(stage domain.StageName) { e.runStage(t, step, stage, now) }
	run(domain.StagePreScoring)
	run(domain.StagePreScoringInfo)
	backup, _ := domain.ParsePhone("998911112233")
	pct, _ := domain.PercentFromHundredths(2800)
	step(func(a *domain.Application) error {
		return a.Verify(domain.Offer{Amount: 1_000_000_000, Percent: pct, MonthPeriod: 12, BackupPhone: backup},
			domain.PostScoreResult{Approved: true, PhoneCallRequired: call, CallCentrePhone: "998781400000"}, now)
	})
	return a, cd, now, step
}

// runStage runs one stage to its done outcome; the loan is what the last issuance stage made.
func (e *env) runStage(t *testing.T, step func(func(a *domain.Application) error), stage domain.StageName, now time.Time) *domain.Loan {
	t.Helper()
	pct, _ := domain.PercentFromHundredths(2800)
	done := domain.StageResult{Outcome: domain.OutcomeDone, Ref: "REF-1",
		PreScore: domain.PreScoreResult{AmountLimit: 5_000_000_000, Percent: pct, MonthPeriod: 12}}
	var loan *domain.Loan
	step(func(a *domain.Application) error {
		if err := a.BeginStage(stage, now); err != nil {
			return err
		}
		l, err := a.CompleteStage(stage, done, domain.LoanProduct{LoanID: uuid.New()}, now)
		loan = l
		return err
	})
	return loan
}

// issuedApplication walks an application through every stage to an issued loan, through the
// repositories, as the workers would.
func (e *env) issuedApplication(t *testing.T) *domain.Application {
	t.Helper()
	a, cd, now, step := e.offered(t, false)
	ctx := context.Background()
	step(func(a *domain.Application) error { return a.Issue(cd, now) })
	var loan *domain.Loan
	for _, s := range []domain.StageName{domain.StageOpenAccount, domain.StageOpenLoanApplication, domain.StageGetOpenLoanApplicationResult,
		domain.StageLoanIssuance, domain.StageGetLoanIssuanceResult} {
		loan = e.runStage(t, step, s, now)
	}
	if loan == nil {
		t.Fatal("no loan issued")
	}
	ledger := store.NewLedgerRepository(e.db)
	err := store.NewUnitOfWork(e.db).Do(ctx, func(ctx context.Context) error {
		if err := e.loans.Create(ctx, loan); err != nil {
			return err
		}
		if err := ledger.OpenLoanAccounts(ctx, loan.ID()); err != nil {
			return err
		}
		p, err := loan.IssuancePosting(uuid.Must(uuid.NewV7()))
		if err != nil {
			return err
		}
		return ledger.Post(ctx, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.apps.Get(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// issuedLoan is issuedApplication and its loan.
func (e *env) issuedLoan(t *testing.T) (*domain.Application, *domain.Loan) {
	t.Helper()
	a := e.issuedApplication(t)
	loan, err := e.loans.GetByApplication(context.Background(), a.ID())
	if err != nil {
		t.Fatal(err)
	}
	return a, loan
}

// console builds the console and logs an officer in (their second factor enrolled); it returns
// the handler and the session cookie.
func (e *env) console(t *testing.T) (http.Handler, *http.Cookie) {
	t.Helper()
	return console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true}), e.as(t, "alice", domain.RoleOfficer).cookie
}
