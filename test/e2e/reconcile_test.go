package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// TestReconcileADayFromTheCommandLine runs a whole microloan flow, then `tiyin reconcile` for
// the day: the sandbox network's journal (its own table, written by the server's process) and
// tiyin's records agree line for line, so the day has no break; a second run records nothing
// new.
func TestReconcileADayFromTheCommandLine(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_LOAN_CONTRACT_DELAY=1s")
	if o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond); o.Err != nil || o.TransferStatus != "SUCCESS" {
		t.Fatalf("flow: %+v", o)
	}
	day := time.Now().In(domain.Tashkent).Format(time.DateOnly)
	// Today is not over: it is refused (issue 47, 7), until the sandbox partner's clock passes
	// the day's end.
	refused := exec.Command(binary, "reconcile", "--date", day)
	refused.Env = s.env
	if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "only a closed business day can be reconciled") {
		t.Fatalf("reconciling today: %v\n%s", err, out)
	}
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "24h"})
	run := func() map[string]reconcileResult { return reconcileDay(t, s, day) }
	first := run()
	uz, core := first["UZCARD"], first["CORE_BANKING"]
	if uz.Ours < 2 || uz.Theirs != uz.Ours || uz.Matched != uz.Ours || len(uz.Breaks) != 0 || first["HUMO"].Ours != 0 {
		t.Fatalf("the day's reconciliation: %+v", first)
	}
	// The loan's demand account, after the disbursement and the transfer, is core banking's.
	if core.Theirs != 1 || core.Matched != 1 || len(core.Breaks) != 0 {
		t.Fatalf("the day's balances: %+v", core)
	}
	// The books prove themselves: every per-loan kind against its control account, no break.
	if b := first["BOOKS"]; b.Ours < 17 || b.Matched != b.Ours || len(b.Breaks) != 0 {
		t.Fatalf("the books' proof: %+v", b)
	}
	if again := run(); again["UZCARD"].New != 0 || again["UZCARD"].Matched != uz.Matched {
		t.Fatalf("the second run: %+v", again)
	}
	// The daily job reconciled the day before when the server started, with each source: the
	// networks, core banking and the books' proof.
	yesterday := time.Now().In(domain.Tashkent).AddDate(0, 0, -1).Format(time.DateOnly)
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out := s.out.String()
		if strings.Count(out, `"msg":"reconciled","day":"`+yesterday+`"`) == 4 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the daily job did not reconcile %s with the networks, core banking and the books:\n%s", yesterday, out)
		}
	}
}

// TestReconcileFindsEveryInjectedFaultAndNothingElse runs mixed traffic on one loan (transfers
// to cards, repayments by card) with the sandbox network's journal faults on, then reconciles
// the day: every credit the journal lost, doubled or drifted and every debit it reversed is a
// break of its kind, and nothing else is; the lost and drifted credits leave the loan's demand
// account apart from core banking's, one balance break. Which line takes which fault follows
// from its id (sandbox.Faults.JournalFault), so the test knows; it adds transfers until every
// kind happened. Two officers then work every break in the console (accept the network's side,
// or explain the balance): the lost credits' transfers are FAILED for their partner, the ledger
// is consistent, and a second run of the day finds nothing new and leaves nothing open.
func TestReconcileFindsEveryInjectedFaultAndNothingElse(t *testing.T) {
	t.Parallel()
	const spec = "lost-credit=0.2,double-credit=0.2,amount-drift=0.2,reversed-debit=0.5"
	faults, err := sandbox.ParseFaults(spec)
	if err != nil {
		t.Fatal(err)
	}
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s", "TIYIN_SANDBOX_FAULTS="+spec),
		admin: "http://" + admin}
	o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond)
	if o.Err != nil || o.TransactionID == "" || o.DebitID == "" {
		t.Fatalf("flow: %+v", o)
	}
	want := map[string]bool{}
	seen := map[string]int{}
	var lost []map[string]any // the lost credits' transfers, as check-status names them
	expect := func(kind domain.LineKind, id string) string {
		f := faults.JournalFault(kind, id)
		seen[f]++
		if b, ok := map[string]domain.BreakKind{sandbox.FaultLostCredit: domain.BreakMissingAtNetwork, sandbox.FaultDoubleCredit: domain.BreakDuplicate,
			sandbox.FaultAmountDrift: domain.BreakAmountDiffers, sandbox.FaultReversedDebit: domain.BreakStatusDiffers}[f]; ok {
			want[string(b)+" "+id] = true
		}
		return f
	}
	expect(domain.LineCredit, o.TransactionID+":CREDIT")
	expect(domain.LineDebit, o.DebitID)
	for i := 0; i < 70 && (seen[sandbox.FaultLostCredit] == 0 || seen[sandbox.FaultDoubleCredit] == 0 || seen[sandbox.FaultAmountDrift] == 0 || seen[""] < 3); i++ {
		ext := uuid.NewString()
		r := s.must(t, "/transfers/account-to-card/create", map[string]any{"externalId": ext, "applicationId": o.App,
			"pan": "8600" + tiyintest.Digits(11) + "9", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 500_000})
		id := r["transactionId"].(string)
		if c := s.call(t, "/transfers/account-to-card/confirm", map[string]any{"externalId": ext, "transactionId": id}); c.code() != 0 {
			t.Fatalf("confirm: %s", c.Raw)
		}
		if expect(domain.LineCredit, id+":CREDIT") == sandbox.FaultLostCredit {
			lost = append(lost, map[string]any{"externalId": ext, "transactionId": id})
		}
	}
	for i := range 12 {
		chk := s.must(t, "/repayment/loans/check", map[string]any{"loanId": o.LoanID})
		debit := fmt.Sprintf("DBT-FAULT-%d-%s", i, uuid.NewString())
		s.must(t, "/repayment/loans/pay", map[string]any{"loanId": o.LoanID, "paymentType": "EARLY", "requestId": chk["requestId"],
			"debitId": debit, "amount": 10_000, "processingType": "UZCARD"})
		expect(domain.LineDebit, debit)
	}
	if seen[sandbox.FaultReversedDebit] == 0 || seen[sandbox.FaultLostCredit] == 0 || seen[sandbox.FaultDoubleCredit] == 0 || seen[sandbox.FaultAmountDrift] == 0 {
		t.Fatalf("not every fault happened: %v", seen)
	}
	// The day is closed on the sandbox partner's clock: only a closed day is reconciled.
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "24h"})
	day := time.Now().In(domain.Tashkent).Format(time.DateOnly)
	reconcile := func() map[string]reconcileResult { return reconcileDay(t, s.server, day) }
	res := reconcile()
	got := map[string]bool{}
	for _, b := range res["UZCARD"].Found {
		got[b] = true
		if !want[b] {
			t.Errorf("a break nothing injected: %s", b)
		}
	}
	for b := range want {
		if !got[b] {
			t.Errorf("an injected fault not found: %s", b)
		}
	}
	if f := res["CORE_BANKING"].Found; len(f) != 1 || !strings.HasPrefix(f[0], "BALANCE_DIFFERS ") || !strings.HasSuffix(f[0], ":DEMAND") {
		t.Errorf("the balances' breaks: %v, want the loan's demand account's", f)
	}
	if len(res["HUMO"].Found) != 0 {
		t.Errorf("HUMO's breaks: %v", res["HUMO"].Found)
	}
	t.Logf("faults injected %v; %d breaks found", seen, len(got))

	// Two officers work every break: alice proposes accepting the network's side (or explaining
	// the balance), bob approves.
	officer := func(name, pw string) *browser {
		b := s.browser(t)
		one := s.operator(t, name, "officer")
		if status, _ := b.login(name, one, ""); status != 200 {
			t.Fatalf("%s's login: %d", name, status)
		}
		b.setUp(one, pw)
		return b
	}
	alice, bob := officer("alice", "alice-long-password-1"), officer("bob", "bob-long-password-22")
	accepts := regexp.MustCompile(`/console/reconciliation/breaks/([0-9a-f-]{36})/accept`)
	explains := regexp.MustCompile(`/console/reconciliation/breaks/([0-9a-f-]{36})/explain`)
	approves := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`)
	_, page := alice.get("/console/reconciliation")
	token := csrfField.FindStringSubmatch(page)[1]
	accepted := 0
	for _, m := range accepts.FindAllStringSubmatch(page, -1) {
		if status, body := alice.post("/console/reconciliation/breaks/"+m[1]+"/accept", url.Values{"csrf": {token},
			"note": {"UZCARD's statement of the day shows it"}}); status != 200 || !strings.Contains(body, "Another officer approves") {
			t.Fatalf("accept %s: %d\n%s", m[1], status, body)
		}
		accepted++
	}
	_, page = bob.get("/console/reconciliation")
	bobToken := csrfField.FindStringSubmatch(page)[1]
	proposals := approves.FindAllStringSubmatch(page, -1)
	if accepted != len(want) || len(proposals) != accepted {
		t.Fatalf("%d acceptances proposed and %d to approve, for %d line breaks", accepted, len(proposals), len(want))
	}
	for _, m := range proposals {
		if status, body := bob.post("/console/proposals/"+m[1]+"/approve", url.Values{"csrf": {bobToken}, "back": {"/console/reconciliation"}}); status != 200 ||
			!strings.Contains(body, "approved and applied") {
			t.Fatalf("approve %s: %d\n%s", m[1], status, body)
		}
	}
	_, page = alice.get("/console/reconciliation")
	left := explains.FindAllStringSubmatch(page, -1)
	if len(left) != 1 || !strings.Contains(page, "BALANCE_DIFFERS") {
		t.Fatalf("after the acceptances %d breaks are open, want the balance's:\n%s", len(left), page)
	}
	// A balance's two sides differ on money: its explanation is a proposal bob approves.
	if status, body := alice.post("/console/reconciliation/breaks/"+left[0][1]+"/explain", url.Values{"csrf": {token},
		"note": {"the lost and drifted credits, accepted today"}}); status != 200 || !strings.Contains(body, "another officer approves it") {
		t.Fatalf("explain the balance: %d\n%s", status, body)
	}
	_, page = bob.get("/console/reconciliation")
	if proposals = approves.FindAllStringSubmatch(page, -1); len(proposals) != 1 {
		t.Fatalf("%d explanations to approve, want the balance's", len(proposals))
	}
	if status, body := bob.post("/console/proposals/"+proposals[0][1]+"/approve", url.Values{"csrf": {bobToken}, "back": {"/console/reconciliation"}}); status != 200 ||
		!strings.Contains(body, "approved and applied") {
		t.Fatalf("approve the balance's explanation: %d\n%s", status, body)
	}
	// The partner sees its lost credits FAILED; the ledger holds; the day reconciles clean.
	for _, ref := range lost {
		if r := s.must(t, "/transfers/check-status", ref); r["status"] != "FAILED" {
			t.Errorf("a lost credit's transfer is %v for its partner", r["status"])
		}
	}
	check := exec.Command(binary, "ledger", "check")
	check.Env = s.env
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), "ledger consistent") {
		t.Errorf("ledger check: %v\n%s", err, out)
	}
	again := reconcile()
	for source, r := range again {
		if r.New != 0 {
			t.Errorf("the second run of %s found %d new breaks: %v", source, r.New, r.Found)
		}
	}
	// The acceptances are posted on the day they are approved, after the day it reconciled: the
	// day's closing balances still differ, as the explanation says; nothing of the day is open.
	for source, r := range again {
		if r.Standing["OPEN"] != 0 {
			t.Errorf("the second run of %s leaves the day's breaks %v", source, r.Standing)
		}
	}
	if c := again["CORE_BANKING"]; len(c.Found) != 1 || c.Standing["EXPLAINED"] != 1 {
		t.Errorf("the balances after the acceptances: %v, %v", c.Found, c.Standing)
	}
	if _, page := alice.get("/console/reconciliation"); !strings.Contains(page, "No break.") {
		t.Errorf("breaks left open after the second run:\n%s", page)
	}
}

// reconcileResult is one source's result as `tiyin reconcile --json` prints it.
type reconcileResult struct {
	Ours, Theirs, Matched, New int
	Breaks                     map[string]int
	Found                      []string
	NewBreaks                  []struct{ Kind, Source, LineID, Status string }
	Standing                   map[string]int
}

// reconcileDay runs `tiyin reconcile --date day --json` on s's database.
func reconcileDay(t *testing.T, s *server, day string) map[string]reconcileResult {
	t.Helper()
	cmd := exec.Command(binary, "reconcile", "--date", day, "--json")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tiyin reconcile: %v: %s", err, out)
	}
	var r map[string]reconcileResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("tiyin reconcile printed %q: %v", out, err)
	}
	return r
}
