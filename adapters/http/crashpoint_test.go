package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Crash points: each use case that calls a gateway between two transactions is stopped right
// at its gateway call, after its first transaction committed (the stop is a panic, which the
// edge answers as code 1 and which leaves what a killed process leaves: the committed first
// step and nothing after). A retry with the same id must give the answer an uninterrupted run
// gives, and every later retry the same bytes; the effect happens once.

// stop makes the gateway call it guards panic while armed, once.
type stop struct{ armed atomic.Bool }

func (s *stop) here() {
	if s.armed.CompareAndSwap(true, false) {
		panic("the process stops here")
	}
}

// stoppingProcessing is the sandbox network with crash points at credit and tokenise.
type stoppingProcessing struct {
	ports.Processing
	credit, tokenise *stop
}

func (p stoppingProcessing) Credit(ctx context.Context, o ports.CreditOrder) (ports.CreditResult, error) {
	p.credit.here()
	return p.Processing.Credit(ctx, o)
}

func (p stoppingProcessing) Tokenise(ctx context.Context, ref string) (string, error) {
	p.tokenise.here()
	return p.Processing.Tokenise(ctx, ref)
}

// stoppingSMS is the sandbox SMS gateway with a crash point at send.
type stoppingSMS struct {
	ports.SMSSender
	send *stop
}

func (s stoppingSMS) Send(ctx context.Context, m ports.SMS) error {
	s.send.here()
	return s.SMSSender.Send(ctx, m)
}

type crashPoints struct{ credit, tokenise, send stop }

func setupCrashPoints(t *testing.T) (*harness, *crashPoints) {
	t.Helper()
	cp := &crashPoints{}
	h := setupWith(t, true, func(s *harnessSetup) {
		s.gateways.Processing = stoppingProcessing{Processing: s.gateways.Processing, credit: &cp.credit, tokenise: &cp.tokenise}
		s.gateways.SMS = stoppingSMS{SMSSender: s.gateways.SMS, send: &cp.send}
	})
	return h, cp
}

// retried sends the request under id again until it is answered with something other than
// the stop's code 1, then once more, and checks that the two answers are the same bytes.
func (h *harness) retried(t *testing.T, id, path string, params any) answer {
	t.Helper()
	a := h.callAs(t, h.key, id, path, params)
	if a.code() == 1 {
		t.Fatalf("%s: the retry stopped too: %s", path, a.Raw)
	}
	if again := h.callAs(t, h.key, id, path, params); !bytes.Equal(again.Raw, a.Raw) || again.Status != a.Status {
		t.Fatalf("%s: a replay differs from the answer:\n%s\n%s", path, a.Raw, again.Raw)
	}
	return a
}

func TestConfirmTransferStoppedAtTheCredit(t *testing.T) {
	t.Parallel()
	h, cp := setupCrashPoints(t)
	app := h.issued(t, 1_000_000_000)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 300_000_000))

	id := uuid.NewString()
	cp.credit.armed.Store(true)
	if a := h.callAs(t, h.key, id, "/transfers/account-to-card/confirm", tr.ref()); a.code() != 1 {
		t.Fatalf("the stop: %s", a.Raw)
	}
	if st := h.transferStatus(t, tr); st != "PROCESSING" {
		t.Fatalf("after the stop the transfer is %s, want PROCESSING (step 1 committed)", st)
	}
	a := h.retried(t, id, "/transfers/account-to-card/confirm", tr.ref())
	if a.code() != 0 || !strings.Contains(string(a.Result), `"SUCCESS"`) {
		t.Fatalf("the retry answered %s, want SUCCESS as an uninterrupted confirm", a.Raw)
	}
	// Another id is another request: the transfer's status no longer allows a confirm.
	if a := h.call(t, "/transfers/account-to-card/confirm", tr.ref()); a.code() != 1016 {
		t.Fatalf("a second confirm: %s", a.Raw)
	}
	h.checkLedger(t)
	if bal := h.demandBalance(t, app); bal != -700_000_000 {
		t.Fatalf("demand account %d, want -700000000: the credit was captured once", bal)
	}
}

func TestConfirmTransferConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000_000)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 300_000_000))
	id := uuid.NewString()
	answers := make([]answer, 4)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = h.callAs(t, h.key, id, "/transfers/account-to-card/confirm", tr.ref()) })
	}
	wg.Wait()
	for _, a := range answers {
		if a.code() != 0 || !bytes.Equal(a.Raw, answers[0].Raw) {
			t.Fatalf("duplicates answered differently:\n%s\n%s", answers[0].Raw, a.Raw)
		}
	}
	h.checkLedger(t)
	if bal := h.demandBalance(t, app); bal != -700_000_000 {
		t.Fatalf("demand account %d, want -700000000: one credit", bal)
	}
}

func TestAttachStoppedAtTheSMS(t *testing.T) {
	t.Parallel()
	h, cp := setupCrashPoints(t)
	params := map[string]any{"pan": "8600123456789012", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"}
	id := uuid.NewString()
	cp.send.armed.Store(true)
	if a := h.callAs(t, h.key, id, "/cards/attach", params); a.code() != 1 {
		t.Fatalf("the stop: %s", a.Raw)
	}
	a := h.retried(t, id, "/cards/attach", params)
	if a.code() != 0 {
		t.Fatalf("the retry: %s", a.Raw)
	}
	var r struct{ CardID string }
	mustUnmarshal(t, a.Result, &r)
	// The code the retry sent opens the card: the one made before the stop was never sent.
	code := h.lastCode(t)
	if c := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": r.CardID, "otpCode": code}); c.code() != 0 {
		t.Fatalf("confirm with the code sent on the retry: %s", c.Raw)
	}
	if n := h.rowCounts(t)["cards"]; n != 1 {
		t.Fatalf("%d cards, want 1", n)
	}
}

func TestConfirmCardStoppedAtTheToken(t *testing.T) {
	t.Parallel()
	h, cp := setupCrashPoints(t)
	cardID, code := h.attach(t, "8600123456789012", "UZCARD")
	params := map[string]any{"cardId": cardID, "otpCode": code}
	id := uuid.NewString()
	cp.tokenise.armed.Store(true)
	if a := h.callAs(t, h.key, id, "/cards/attach/confirm", params); a.code() != 1 {
		t.Fatalf("the stop: %s", a.Raw)
	}
	if st := h.cardStatus(t, cardID); st != "UNVERIFIED" {
		t.Fatalf("after the stop: %s, want UNVERIFIED (its code accepted)", st)
	}
	// Another request with the code finds it used: the card is being activated.
	if a := h.call(t, "/cards/attach/confirm", params); a.code() != 1010 {
		t.Fatalf("the used code under another id: %s", a.Raw)
	}
	a := h.retried(t, id, "/cards/attach/confirm", params)
	if a.code() != 0 || h.cardStatus(t, cardID) != "ACTIVE" {
		t.Fatalf("the retry: %s, card %s", a.Raw, h.cardStatus(t, cardID))
	}
}

// TestConfirmCardConcurrentDuplicatesCountOneAttempt: duplicates of a wrong code's request
// count one attempt and answer the same bytes.
func TestConfirmCardConcurrentDuplicatesCountOneAttempt(t *testing.T) {
	t.Parallel()
	h := setup(t)
	cardID, code := h.attach(t, "8600123456789012", "UZCARD")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	id := uuid.NewString()
	answers := make([]answer, 4)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			answers[i] = h.callAs(t, h.key, id, "/cards/attach/confirm", map[string]any{"cardId": cardID, "otpCode": wrong})
		})
	}
	wg.Wait()
	for _, a := range answers {
		if a.code() != 1009 || !bytes.Equal(a.Raw, answers[0].Raw) {
			t.Fatalf("duplicates answered differently:\n%s\n%s", answers[0].Raw, a.Raw)
		}
	}
	if a := h.call(t, "/cards/attach/confirm", map[string]any{"cardId": cardID, "otpCode": wrong}); !strings.Contains(a.Error.Message, "1 attempts left") {
		t.Fatalf("the next wrong code: %s, want 1 attempt left (the duplicates counted one)", a.Raw)
	}
}

func (h *harness) transferStatus(t *testing.T, tr transfer) string {
	t.Helper()
	a := h.call(t, "/transfers/check-status", tr.ref())
	var r struct{ Status string }
	mustUnmarshal(t, a.Result, &r)
	return r.Status
}

// demandBalance is the loan's demand account as the ledger has it (debits minus credits).
func (h *harness) demandBalance(t *testing.T, app string) int64 {
	t.Helper()
	var bal int64
	err := h.db.Gorm.Raw(`SELECT a.balance FROM ledger_accounts a JOIN loans l ON a.key = ? || CAST(l.id AS TEXT)
		WHERE l.application_id = ?`, domain.AccountDemand.String()+":", uuid.MustParse(app)).Scan(&bal).Error
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}
