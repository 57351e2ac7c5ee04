package server

import (
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
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/client"
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

// demo is one walk through the sandbox, through the typed client partners import (package
// client), so that the client is used, and checked, by every run.
type demo struct {
	url, key string
	wait     time.Duration
	c        *client.ClientWithResponses
	out      io.Writer
	progress io.Writer
	step     int
}

// demoError is an answer the walk did not expect: tiyin's error, with the path that answered it
// (code 0 for an answer without tiyin's envelope, which no repeat mends).
type demoError struct {
	path string
	api  *client.APIError
}

func (e *demoError) Error() string {
	if e.api.Code == 0 {
		return fmt.Sprintf("%s: HTTP %d", e.path, e.api.Status)
	}
	return fmt.Sprintf("%s answered code %d: %s", e.path, e.api.Code, e.api.Message)
}

// Unwrap gives tiyin's error, so client.Retryable and errors.Is(err, client.CodeX) read it.
func (e *demoError) Unwrap() error { return e.api }

// demoRetry is how the demo repeats a call that may succeed on a repeat: enough attempts that
// a sandbox answering code 10 to three calls in ten (TIYIN_SANDBOX_FAULTS=error=0.3, as
// docs/integration.md suggests) still walks to the end.
var demoRetry = client.Retry{Attempts: 8, First: 100 * time.Millisecond, Max: 2 * time.Second}

// connect makes the client that sends the partner's key with every call.
func (d *demo) connect() error {
	c, err := client.NewClientWithResponses(d.url, client.WithHTTPClient(envelopeErrors{http: &http.Client{Timeout: 15 * time.Second},
		url: d.url, retry: demoRetry}),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+d.key)
			return nil
		}))
	d.c = c
	return err
}

// envelopeErrors is the demo's HTTP client: an answer other than 200 becomes the error its
// envelope carries, so a typed call either fails or has its JSON200. A call that may succeed
// on a repeat (client.Retryable: no answer, or code 7, 9 or 10) is sent again as client.Do
// sends it, with the same body and so the same envelope id: tiyin answers a repeat with the
// first answer, or finishes what the first started, so the demo, a worked example, shows the
// way a partner must call.
type envelopeErrors struct {
	http  *http.Client
	url   string
	retry client.Retry
}

// Do implements client.HttpRequestDoer.
func (e envelopeErrors) Do(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	first := true
	err := client.Do(req.Context(), e.retry, func(context.Context, client.UUID) error {
		if !first && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return err
			}
			req.Body = body
		}
		first = false
		var err error
		resp, err = e.once(req) //nolint:bodyclose // the generated client reads and closes the body Do returns
		return err
	})
	return resp, err
}

// once sends req one time.
func (e envelopeErrors) once(req *http.Request) (*http.Response, error) {
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is tiyin serve running at %s?)", req.URL.Path, err, e.url)
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer func() { _ = resp.Body.Close() }()
	var f client.ErrorResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&f); err != nil || f.Error.Code == 0 {
		return nil, &demoError{path: req.URL.Path, api: &client.APIError{Status: resp.StatusCode}}
	}
	return nil, &demoError{path: req.URL.Path, api: &client.APIError{Code: client.Code(f.Error.Code), Status: resp.StatusCode,
		Message: f.Error.Message, RequestID: resp.Header.Get("X-Request-Id")}}
}

// show prints one step: what was asked and what came back.
func (d *demo) show(what, asked, answered string) {
	d.step++
	fmt.Fprintf(d.out, "%2d  %-26s %-34s %s\n", d.step, what, asked, answered)
}

// poll asks until done, showing a spinner meanwhile.
func (d *demo) poll(ctx context.Context, label string, done func() (bool, error)) error {
	spin := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	start := time.Now()
	defer fmt.Fprint(d.progress, "\r\033[K")
	for i := 0; ; i++ {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if time.Since(start) > d.wait {
			return fmt.Errorf("%s: still not there after %s", label, d.wait)
		}
		fmt.Fprintf(d.progress, "\r%c %s (%.1fs)", spin[i%len(spin)], label, time.Since(start).Seconds())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// advance moves the sandbox clock by duration and returns the new time.
func (d *demo) advance(ctx context.Context, duration string) (time.Time, error) {
	r, err := d.c.AdvanceClockWithResponse(ctx, client.AdvanceClockRequest{Id: uuid.New(), Params: client.AdvanceClockParams{Duration: duration}})
	if err != nil {
		return time.Time{}, err
	}
	return r.JSON200.Result.Now, nil
}

func (d *demo) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := d.connect(); err != nil {
		return err
	}
	now, err := d.advance(ctx, "0s")
	if err != nil {
		var de *demoError
		if errors.As(err, &de) && de.api.Code == 6 {
			return errors.New("this server has no sandbox (TIYIN_SANDBOX=false): the demo moves the sandbox clock")
		}
		return err
	}
	fmt.Fprintf(d.out, "%2s  %-26s %-34s %s\n", "#", "step", "asked", "answered")
	d.show("sandbox clock", "duration 0s", now.Format(time.RFC3339))
	for _, step := range []func(context.Context) error{d.microloan, d.cards} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.out, "\ndemo complete: every answer was the expected one")
	return nil
}

const demoPINFL = "31234567890123"

func demoDate(s string) openapi_types.Date {
	t, _ := time.Parse(time.DateOnly, s)
	return openapi_types.Date{Time: t}
}

func demoClient() client.ClientData {
	return client.ClientData{Pinfl: demoPINFL, LastName: "Karimov", FirstName: "Aziz", BirthDate: demoDate("1990-05-17"),
		Phone: "998901234567",
		Document: client.Document{Type: client.PASSPORT, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
			IssuedDate: demoDate("2020-01-10"), ExpiryDate: demoDate("2030-01-09")},
		Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}
}

func (d *demo) application(ctx context.Context, app openapi_types.UUID) (client.GetApplicationResult, error) {
	r, err := d.c.GetApplicationWithResponse(ctx, client.GetApplicationRequest{Id: uuid.New(), Params: client.GetApplicationParams{ApplicationId: app}})
	if err != nil {
		return client.GetApplicationResult{}, err
	}
	return r.JSON200.Result, nil
}

func (d *demo) microloan(ctx context.Context) error {
	reg, err := d.c.RegisterApplicationWithResponse(ctx, client.RegisterApplicationRequest{Id: uuid.New(), Params: client.RegisterApplicationParams{
		ExternalId: uuid.New(), IsAgreementAccepted: true, PhoneNumber: "998901234567", ClientData: demoClient()}})
	if err != nil {
		return err
	}
	app := reg.JSON200.Result.ApplicationId
	d.show("pre-scoring register", "pinfl "+demoPINFL, "applicationId "+app.String())
	var info client.GetApplicationResult
	err = d.poll(ctx, "pre-scoring", func() (bool, error) {
		info, err = d.application(ctx, app)
		return info.Status == client.ApplicationStatusPENDING, err
	})
	if err != nil {
		return err
	}
	pre := info.PreScoreResult
	if pre == nil {
		return errors.New("application info: PENDING without preScoreResult")
	}
	d.show("application info", "", fmt.Sprintf("%s %s/%s; limit %d tiyin, %v%%, %d months", info.Status, info.LastTask.Name, info.LastTask.Status,
		pre.AmountLimit, pre.Percent, pre.MonthPeriod))
	v, err := d.c.VerifyApplicationWithResponse(ctx, client.VerifyApplicationRequest{Id: uuid.New(), Params: client.VerifyApplicationParams{
		ApplicationId: app, Amount: 300_000_000, Percent: client.Percent(pre.Percent), MonthPeriod: pre.MonthPeriod, BackupPhone: "998911112233"}})
	if err != nil {
		return err
	}
	d.show("verify", "amount 300000000, 12 months", fmt.Sprintf("phoneCallRequired %v", v.JSON200.Result.PhoneCallRequired))
	_, err = d.c.IssueApplicationWithResponse(ctx, client.IssueApplicationRequest{Id: uuid.New(), Params: client.IssueApplicationParams{
		ApplicationId: app, ClientData: demoClient()}})
	if err != nil {
		return err
	}
	err = d.poll(ctx, "issuance: five core-banking stages", func() (bool, error) {
		info, err = d.application(ctx, app)
		return info.Status == client.ApplicationStatusCOMPLETED, err
	})
	if err != nil {
		return err
	}
	d.show("issue", "same clientData", fmt.Sprintf("%s %s/%s", info.Status, info.LastTask.Name, info.LastTask.Status))
	loanID, err := d.transferAndLoan(ctx, app)
	if err != nil {
		return err
	}
	return d.repay(ctx, loanID)
}

// transferAndLoan sends the loan to a card, then moves the clock until the loan has its number.
func (d *demo) transferAndLoan(ctx context.Context, app openapi_types.UUID) (string, error) {
	ext, pan := uuid.New(), "8600123456789012"
	tr, err := d.c.CreateTransferWithResponse(ctx, client.CreateTransferRequest{Id: uuid.New(), Params: client.CreateTransferParams{
		ExternalId: ext, ApplicationId: app, Pan: &pan, ReceiverCardType: client.CreateTransferParamsReceiverCardTypeUZCARD,
		CardHolderName: "AZIZ KARIMOV", Amount: 300_000_000}})
	if err != nil {
		return "", err
	}
	txID, err := uuid.Parse(tr.JSON200.Result.TransactionId)
	if err != nil {
		return "", fmt.Errorf("transfer: transactionId %q: %w", tr.JSON200.Result.TransactionId, err)
	}
	conf, err := d.c.ConfirmTransferWithResponse(ctx, client.TransferRefRequest{Id: uuid.New(), Params: client.TransferRefParams{ExternalId: ext, TransactionId: txID}})
	if err != nil {
		return "", err
	}
	// A credit whose outcome tiyin has not yet learnt from the network stays PROCESSING: ask
	// for it until it settles, as a partner does.
	status := conf.JSON200.Result.Status
	if status == client.TransferStatusPROCESSING {
		err = d.poll(ctx, "the network's credit", func() (bool, error) {
			r, err := d.c.CheckTransferWithResponse(ctx, client.TransferRefRequest{Id: uuid.New(), Params: client.TransferRefParams{ExternalId: ext, TransactionId: txID}})
			if err != nil {
				return false, err
			}
			status = r.JSON200.Result.Status
			return status != client.TransferStatusPROCESSING, nil
		})
		if err != nil {
			return "", err
		}
	}
	if status != client.TransferStatusSUCCESS {
		return "", fmt.Errorf("transfer: status %s, want SUCCESS", status)
	}
	d.show("transfer to a card", "300000000 to 860012******9012", fmt.Sprintf("transactionId %s %s", txID, status))

	if _, err := d.advance(ctx, "31m"); err != nil {
		return "", err
	}
	var loan client.GetLoanResult
	err = d.poll(ctx, "contract number from core banking", func() (bool, error) {
		r, err := d.c.GetLoanWithResponse(ctx, client.GetApplicationRequest{Id: uuid.New(), Params: client.GetApplicationParams{ApplicationId: app}})
		if err != nil {
			return false, err
		}
		loan = r.JSON200.Result
		return loan.LoanId != nil, nil
	})
	if err != nil {
		return "", err
	}
	d.show("advance clock, loan info", "31m", fmt.Sprintf("loanId %s, totalResidue %d, totalFine %d", *loan.LoanId, loan.TotalResidue, loan.TotalFine))
	return *loan.LoanId, nil
}

// repay reads the schedule, checks and pays part of the loan, and lists the payment.
func (d *demo) repay(ctx context.Context, loanID string) error {
	ref := client.LoanIdRequest{Id: uuid.New(), Params: client.LoanIdParams{LoanId: loanID}}
	sch, err := d.c.GetScheduleWithResponse(ctx, ref)
	if err != nil {
		return err
	}
	items := sch.JSON200.Result.Schedule
	if len(items) == 0 {
		return errors.New("schedule: no instalments")
	}
	d.show("schedule", "loanId "+loanID, fmt.Sprintf("%d instalments; first on %s: %d tiyin", len(items),
		items[0].PaymentDate.Format(time.DateOnly), items[0].TotalRepaymentAmount))

	ref.Id = uuid.New()
	check, err := d.c.CheckRepaymentWithResponse(ctx, ref)
	if err != nil {
		return err
	}
	q := check.JSON200.Result
	d.show("repayment check", "", fmt.Sprintf("requestId %s, maxAmount %d", q.RequestId, q.MaxAmount))
	pay, err := d.c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: uuid.New(), Params: client.PayRepaymentParams{
		LoanId: loanID, PaymentType: client.PayRepaymentParamsPaymentTypeEARLY, RequestId: q.RequestId, DebitId: "DEMO-" + uuid.NewString(),
		Amount: 50_000_000, ProcessingType: client.PayRepaymentParamsProcessingTypeUZCARD}})
	if err != nil {
		return err
	}
	if st := pay.JSON200.Result.Status; st != client.RepaymentStatusSUCCESS {
		return fmt.Errorf("repayment: status %s, want SUCCESS", st)
	}
	d.show("repayment pay", "EARLY 50000000", string(pay.JSON200.Result.Status))
	ref.Id = uuid.New()
	pays, err := d.c.ListPaymentsWithResponse(ctx, ref)
	if err != nil {
		return err
	}
	list := pays.JSON200.Result.Payments
	if len(list) != 1 {
		return fmt.Errorf("payments: %d, want the one just made", len(list))
	}
	d.show("payments", "loanId "+loanID, fmt.Sprintf("%d payment: %d tiyin on %s", len(list), list[0].TotalRepaymentAmount,
		list[0].PaymentDate.Format(time.DateOnly)))
	return nil
}

func (d *demo) cards(ctx context.Context) error {
	order, err := d.c.OrderCardWithResponse(ctx, client.OrderCardRequest{Id: uuid.New(), Params: client.OrderCardParams{
		ExternalId: "DEMO-" + uuid.NewString(), PhoneNumber: "998901234567", ClientData: demoClient(),
		PrivacyPolicyAccepted: true, TermsAndConditionsAccepted: true}})
	if err != nil {
		return err
	}
	orderID, err := uuid.Parse(order.JSON200.Result.OrderId)
	if err != nil {
		return fmt.Errorf("card order: orderId %q: %w", order.JSON200.Result.OrderId, err)
	}
	var card *client.CardInfo
	err = d.poll(ctx, "card issuer", func() (bool, error) {
		r, err := d.c.GetCardOrderWithResponse(ctx, client.OrderIdRequest{Id: uuid.New(), Params: client.OrderIdParams{OrderId: orderID}})
		if err != nil {
			return false, err
		}
		card = r.JSON200.Result.Card
		return r.JSON200.Result.Order.Status == client.CardOrderStatusCOMPLETED && card != nil, nil
	})
	if err != nil {
		return err
	}
	d.show("card order", "UZCARD for pinfl "+demoPINFL, fmt.Sprintf("COMPLETED: card %s %s", card.Id, card.Pan))

	pan, phone, err := demoCard()
	if err != nil {
		return err
	}
	att, err := d.c.AttachCardWithResponse(ctx, client.AttachCardRequest{Id: uuid.New(), Params: client.AttachCardParams{
		Pan: pan, Expiry: time.Now().AddDate(3, 0, 0).Format("0601"), ProcessingType: client.AttachCardParamsProcessingTypeUZCARD, PhoneNumber: phone}})
	if err != nil {
		return err
	}
	cardID, err := uuid.Parse(att.JSON200.Result.CardId)
	if err != nil {
		return fmt.Errorf("attach: cardId %q: %w", att.JSON200.Result.CardId, err)
	}
	d.show("card attach", pan[:6]+"******"+pan[12:]+", phone "+phone, fmt.Sprintf("cardId %s; SMS code sent", cardID))
	box, err := d.c.SmsOutboxWithResponse(ctx, client.SMSOutboxRequest{Id: uuid.New(), Params: client.SMSOutboxParams{PhoneNumber: phone}})
	if err != nil {
		return err
	}
	msgs := box.JSON200.Result.Messages
	if len(msgs) == 0 {
		return errors.New("sandbox SMS outbox is empty after attach")
	}
	_, err = d.c.ConfirmCardWithResponse(ctx, client.ConfirmCardRequest{Id: uuid.New(), Params: client.ConfirmCardParams{CardId: cardID, OtpCode: msgs[0].Code}})
	if err != nil {
		return err
	}
	st, err := d.c.GetCardStatusWithResponse(ctx, client.CardIdRequest{Id: uuid.New(), Params: client.CardIdParams{CardId: cardID}})
	if err != nil {
		return err
	}
	if s := st.JSON200.Result.Status; s != client.ACTIVE {
		return fmt.Errorf("attached card: status %s, want ACTIVE", s)
	}
	d.show("card attach confirm", "code from the sandbox outbox", string(st.JSON200.Result.Status))
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
