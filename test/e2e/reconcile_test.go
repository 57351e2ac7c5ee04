package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
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
	type result struct {
		Ours, Theirs, Matched, New int
		Breaks                     map[string]int
	}
	run := func() map[string]result {
		cmd := exec.Command(binary, "reconcile", "--date", day, "--json")
		cmd.Env = s.env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tiyin reconcile: %v: %s", err, out)
		}
		var r map[string]result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("tiyin reconcile printed %q: %v", out, err)
		}
		return r
	}
	first := run()
	uz := first["UZCARD"]
	if uz.Ours < 2 || uz.Theirs != uz.Ours || uz.Matched != uz.Ours || len(uz.Breaks) != 0 || first["HUMO"].Ours != 0 {
		t.Fatalf("the day's reconciliation: %+v", first)
	}
	if again := run(); again["UZCARD"].New != 0 || again["UZCARD"].Matched != uz.Matched {
		t.Fatalf("the second run: %+v", again)
	}
	// The daily job reconciled the day before when the server started, on each network.
	yesterday := time.Now().In(domain.Tashkent).AddDate(0, 0, -1).Format(time.DateOnly)
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out := s.out.String()
		if strings.Count(out, `"msg":"reconciled","day":"`+yesterday+`"`) == 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the daily job did not reconcile %s on both networks:\n%s", yesterday, out)
		}
	}
}

// TestReconcileFindsEveryInjectedFaultAndNothingElse runs mixed traffic on one loan (transfers
// to cards, repayments by card) with the sandbox network's journal faults on, then reconciles
// the day: every credit the journal lost, doubled or drifted and every debit it reversed is a
// break of its kind, and nothing else is. Which line takes which fault follows from its id
// (sandbox.Faults.JournalFault), so the test knows; it adds transfers until every kind
// happened.
func TestReconcileFindsEveryInjectedFaultAndNothingElse(t *testing.T) {
	t.Parallel()
	const spec = "lost-credit=0.2,double-credit=0.2,amount-drift=0.2,reversed-debit=0.5"
	faults, err := sandbox.ParseFaults(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, store.SQLite, "TIYIN_LOAN_CONTRACT_DELAY=1s", "TIYIN_SANDBOX_FAULTS="+spec)
	o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond)
	if o.Err != nil || o.TransactionID == "" || o.DebitID == "" {
		t.Fatalf("flow: %+v", o)
	}
	want := map[string]bool{}
	seen := map[string]int{}
	expect := func(kind domain.LineKind, id string) {
		f := faults.JournalFault(kind, id)
		seen[f]++
		if b, ok := map[string]domain.BreakKind{sandbox.FaultLostCredit: domain.BreakMissingAtNetwork, sandbox.FaultDoubleCredit: domain.BreakDuplicate,
			sandbox.FaultAmountDrift: domain.BreakAmountDiffers, sandbox.FaultReversedDebit: domain.BreakStatusDiffers}[f]; ok {
			want[string(b)+" "+id] = true
		}
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
		expect(domain.LineCredit, id+":CREDIT")
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
	cmd := exec.Command(binary, "reconcile", "--date", time.Now().In(domain.Tashkent).Format(time.DateOnly), "--network", "UZCARD", "--json")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tiyin reconcile: %v: %s", err, out)
	}
	var res map[string]struct{ Found []string }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("tiyin reconcile printed %q: %v", out, err)
	}
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
	t.Logf("faults injected %v; %d breaks found", seen, len(got))
}
