package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func demoCmd() *cobra.Command {
	d := &demo{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Walk the whole microloan process and a card attach against a running sandbox server",
		Long: `Drives a running tiyin sandbox the way a partner's backend does: pre-scoring → verify →
issue → transfer to a card → advance the clock → loan info → schedule → repayment → payments,
then card order → attach → confirm. Prints each call's essentials and its result, and exits
non-zero on the first unexpected answer.

The server's address and key come from --url and --key, else from TIYIN_URL and TIYIN_KEY
(the export line tiyin serve prints), else http://localhost:8080 and TIYIN_SANDBOX_API_KEY.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if d.key == "" {
				return errors.New("no API key: give --key, or set TIYIN_KEY (tiyin serve prints it)")
			}
			d.url = strings.TrimRight(d.url, "/")
			d.client = &http.Client{Timeout: 15 * time.Second}
			d.out = os.Stdout
			d.progress = io.Discard
			if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				d.progress = os.Stderr // a spinner only where a person watches
			}
			return d.run(c.Context())
		},
	}
	c.Flags().StringVar(&d.url, "url", firstNonEmpty(os.Getenv("TIYIN_URL"), "http://localhost:8080"), "server address")
	c.Flags().StringVar(&d.key, "key", firstNonEmpty(os.Getenv("TIYIN_KEY"), os.Getenv("TIYIN_SANDBOX_API_KEY")), "partner API key")
	c.Flags().DurationVar(&d.wait, "wait", 60*time.Second, "longest wait for one background step")
	return c
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// demo is one walk through the sandbox.
type demo struct {
	url, key string
	wait     time.Duration
	client   *http.Client
	out      io.Writer
	progress io.Writer
	step     int
}

// demoError is an answer the walk did not expect.
type demoError struct {
	path string
	code int
	msg  string
}

func (e *demoError) Error() string {
	return fmt.Sprintf("%s answered code %d: %s", e.path, e.code, e.msg)
}

// call sends one envelope and returns its result, or the answer's error.
func (d *demo) call(ctx context.Context, method, path string, params any) (map[string]any, error) {
	body, err := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, d.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is tiyin serve running at %s?)", path, err, d.url)
	}
	defer func() { _ = resp.Body.Close() }()
	var env struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, 1<<20))
	dec.UseNumber() // amounts print as the integers they are
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%s: answer is not an envelope (HTTP %d): %w", path, resp.StatusCode, err)
	}
	if env.Error != nil {
		return nil, &demoError{path: path, code: env.Error.Code, msg: env.Error.Message}
	}
	return env.Result, nil
}

// show prints one step: what was asked and what came back.
func (d *demo) show(what, asked, answered string) {
	d.step++
	fmt.Fprintf(d.out, "%2d  %-26s %-34s %s\n", d.step, what, asked, answered)
}

// poll calls path until done accepts the result, showing a spinner meanwhile.
func (d *demo) poll(ctx context.Context, label, path string, params any, done func(map[string]any) bool) (map[string]any, error) {
	spin := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	start := time.Now()
	defer fmt.Fprint(d.progress, "\r\033[K")
	for i := 0; ; i++ {
		r, err := d.call(ctx, http.MethodPost, path, params)
		if err != nil {
			return nil, err
		}
		if done(r) {
			return r, nil
		}
		if time.Since(start) > d.wait {
			return nil, fmt.Errorf("%s: still not there after %s: %v", label, d.wait, r)
		}
		fmt.Fprintf(d.progress, "\r%c %s (%.1fs)", spin[i%len(spin)], label, time.Since(start).Seconds())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (d *demo) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	clock, err := d.call(ctx, http.MethodPost, "/sandbox/clock/advance", map[string]any{"duration": "0s"})
	if err != nil {
		var de *demoError
		if errors.As(err, &de) && de.code == 6 {
			return errors.New("this server has no sandbox (TIYIN_SANDBOX=false): the demo moves the sandbox clock")
		}
		return err
	}
	fmt.Fprintf(d.out, "%2s  %-26s %-34s %s\n", "#", "step", "asked", "answered")
	d.show("sandbox clock", "duration 0s", fmt.Sprint(clock["now"]))
	for _, step := range []func(context.Context) error{d.microloan, d.cards} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.out, "\ndemo complete: every answer was the expected one")
	return nil
}

const demoPINFL = "31234567890123"

func demoClient() map[string]any {
	return map[string]any{"pinfl": demoPINFL, "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
		"phone": "998901234567",
		"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567", "issuedBy": "Toshkent IIB",
			"issuedDate": "2020-01-10", "expiryDate": "2030-01-09"},
		"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"}}
}

func statusOf(r map[string]any) string {
	s, _ := r["status"].(string)
	if t, ok := r["lastTask"].(map[string]any); ok {
		s += fmt.Sprintf(" %v/%v", t["name"], t["status"])
	}
	return s
}

func (d *demo) microloan(ctx context.Context) error {
	reg, err := d.call(ctx, http.MethodPost, "/microloans/applications/pre-scoring/register", map[string]any{
		"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": demoClient()})
	if err != nil {
		return err
	}
	app := reg["applicationId"].(string)
	d.show("pre-scoring register", "pinfl "+demoPINFL, "applicationId "+app)
	ref := map[string]any{"applicationId": app}
	info, err := d.poll(ctx, "pre-scoring", "/microloans/applications/info", ref, func(r map[string]any) bool { return r["status"] == "PENDING" })
	if err != nil {
		return err
	}
	pre := info["preScoreResult"].(map[string]any)
	d.show("application info", "", fmt.Sprintf("%s; limit %v tiyin, %v%%, %v months", statusOf(info), pre["amountLimit"], pre["percent"], pre["monthPeriod"]))
	v, err := d.call(ctx, http.MethodPost, "/microloans/applications/verify", map[string]any{"applicationId": app,
		"amount": 300_000_000, "percent": pre["percent"], "monthPeriod": pre["monthPeriod"], "backupPhone": "998911112233"})
	if err != nil {
		return err
	}
	d.show("verify", "amount 300000000, 12 months", fmt.Sprintf("phoneCallRequired %v", v["phoneCallRequired"]))
	if _, err := d.call(ctx, http.MethodPost, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": demoClient()}); err != nil {
		return err
	}
	info, err = d.poll(ctx, "issuance: five core-banking stages", "/microloans/applications/info", ref, func(r map[string]any) bool {
		return r["status"] == "COMPLETED"
	})
	if err != nil {
		return err
	}
	d.show("issue", "same clientData", statusOf(info))

	ext := uuid.NewString()
	tr, err := d.call(ctx, http.MethodPost, "/transfers/account-to-card/create", map[string]any{"externalId": ext, "applicationId": app,
		"pan": "8600123456789012", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 300_000_000})
	if err != nil {
		return err
	}
	conf, err := d.call(ctx, http.MethodPost, "/transfers/account-to-card/confirm", map[string]any{"externalId": ext, "transactionId": tr["transactionId"]})
	if err != nil {
		return err
	}
	if conf["status"] != "SUCCESS" {
		return fmt.Errorf("transfer: status %v, want SUCCESS", conf["status"])
	}
	d.show("transfer to a card", "300000000 to 860012******9012", fmt.Sprintf("transactionId %v %v", tr["transactionId"], conf["status"]))

	if _, err := d.call(ctx, http.MethodPost, "/sandbox/clock/advance", map[string]any{"duration": "31m"}); err != nil {
		return err
	}
	loan, err := d.poll(ctx, "contract number from core banking", "/microloans/info", ref, func(r map[string]any) bool { return r["loanId"] != nil })
	if err != nil {
		return err
	}
	loanID := loan["loanId"].(string)
	d.show("advance clock, loan info", "31m", fmt.Sprintf("loanId %s, totalResidue %v, totalFine %v", loanID, loan["totalResidue"], loan["totalFine"]))
	sch, err := d.call(ctx, http.MethodPost, "/microloans/schedule", map[string]any{"loanId": loanID})
	if err != nil {
		return err
	}
	items, _ := sch["schedule"].([]any)
	if len(items) == 0 {
		return errors.New("schedule: no instalments")
	}
	it := items[0].(map[string]any)
	first := fmt.Sprintf("; first on %.10s: %v tiyin", it["paymentDate"], it["totalRepaymentAmount"])
	d.show("schedule", "loanId "+loanID, fmt.Sprintf("%d instalments%s", len(items), first))

	check, err := d.call(ctx, http.MethodPost, "/repayment/loans/check", map[string]any{"loanId": loanID})
	if err != nil {
		return err
	}
	d.show("repayment check", "", fmt.Sprintf("requestId %v, maxAmount %v", check["requestId"], check["maxAmount"]))
	pay, err := d.call(ctx, http.MethodPost, "/repayment/loans/pay", map[string]any{"loanId": loanID, "paymentType": "EARLY",
		"requestId": check["requestId"], "debitId": "DEMO-" + uuid.NewString(), "amount": 50_000_000, "processingType": "UZCARD"})
	if err != nil {
		return err
	}
	if pay["status"] != "SUCCESS" {
		return fmt.Errorf("repayment: status %v, want SUCCESS", pay["status"])
	}
	d.show("repayment pay", "EARLY 50000000", fmt.Sprint(pay["status"]))
	pays, err := d.call(ctx, http.MethodPost, "/microloans/payments", map[string]any{"loanId": loanID})
	if err != nil {
		return err
	}
	list, _ := pays["payments"].([]any)
	if len(list) != 1 {
		return fmt.Errorf("payments: %d, want the one just made", len(list))
	}
	p := list[0].(map[string]any)
	d.show("payments", "loanId "+loanID, fmt.Sprintf("%d payment: %v tiyin on %.10s", len(list), p["totalRepaymentAmount"], p["paymentDate"]))
	return nil
}

func (d *demo) cards(ctx context.Context) error {
	order, err := d.call(ctx, http.MethodPost, "/cards/order", map[string]any{"externalId": "DEMO-" + uuid.NewString(),
		"phoneNumber": "998901234567", "clientData": demoClient(), "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})
	if err != nil {
		return err
	}
	info, err := d.poll(ctx, "card issuer", "/cards/order/info", map[string]any{"orderId": order["orderId"]}, func(r map[string]any) bool {
		o, _ := r["order"].(map[string]any)
		return o["status"] == "COMPLETED"
	})
	if err != nil {
		return err
	}
	card, _ := info["card"].(map[string]any)
	d.show("card order", "UZCARD for pinfl "+demoPINFL, fmt.Sprintf("COMPLETED: card %v %v", card["id"], card["pan"]))

	pan, phone, err := demoCard()
	if err != nil {
		return err
	}
	expiry := time.Now().AddDate(3, 0, 0).Format("0601")
	att, err := d.call(ctx, http.MethodPost, "/cards/attach", map[string]any{"pan": pan, "expiry": expiry, "processingType": "UZCARD",
		"phoneNumber": phone})
	if err != nil {
		return err
	}
	d.show("card attach", pan[:6]+"******"+pan[12:]+", phone "+phone, fmt.Sprintf("cardId %v; SMS code sent", att["cardId"]))
	box, err := d.call(ctx, http.MethodPost, "/sandbox/sms/outbox", map[string]any{"phoneNumber": phone})
	if err != nil {
		return err
	}
	msgs, _ := box["messages"].([]any)
	if len(msgs) == 0 {
		return errors.New("sandbox SMS outbox is empty after attach")
	}
	code := msgs[0].(map[string]any)["code"]
	if _, err := d.call(ctx, http.MethodPost, "/cards/attach/confirm", map[string]any{"cardId": att["cardId"], "otpCode": code}); err != nil {
		return err
	}
	st, err := d.call(ctx, http.MethodPost, "/cards/status", map[string]any{"cardId": att["cardId"]})
	if err != nil {
		return err
	}
	if st["status"] != "ACTIVE" {
		return fmt.Errorf("attached card: status %v, want ACTIVE", st["status"])
	}
	d.show("card attach confirm", "code from the sandbox outbox", fmt.Sprint(st["status"]))
	return nil
}

// demoCard makes a UZCARD number and a phone of its own for this run, so repeated demos on one
// server never meet a card attached before.
func demoCard() (pan, phone string, err error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1e10))
	if err != nil {
		return "", "", err
	}
	m, err := rand.Int(rand.Reader, big.NewInt(1e7))
	if err != nil {
		return "", "", err
	}
	pan = fmt.Sprintf("860099%010d", n.Int64())
	return pan, fmt.Sprintf("99893%07d", m.Int64()), nil
}
