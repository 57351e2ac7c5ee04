// Package demo is `tiyin demo`: a scripted walk through a running sandbox server, as a
// partner's backend drives it, through the Go client partners import. It is the tiyin binary's
// own command (cmd/tiyin runs it), outside package server, so that a bank's own build of
// tiyin carries neither the walk nor the client.
package demo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/client"
)

// Run runs `tiyin demo` on args (what follows "demo" on the command line) and returns its exit
// status as tiyin's other commands do: 0 once every answer was the expected one, 2 for a
// command line it does not understand, 1 for any other failure (said on stderr).
func Run(args []string) int {
	root := &cobra.Command{Use: "tiyin", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(command())
	root.SetArgs(append([]string{"demo"}, args...))
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tiyin:", err)
		var usage usageError
		if errors.As(err, &usage) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a command line the demo does not understand: exit status 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func command() *cobra.Command {
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
		Args: func(c *cobra.Command, args []string) error {
			if err := cobra.NoArgs(c, args); err != nil {
				return usageError{fmt.Errorf("%w (see tiyin demo --help)", err)}
			}
			return nil
		},
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
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see tiyin demo --help)", err)}
	})
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

// demo is one walk through the sandbox, through the Go client partners import (package
// client), so that the client is used, and checked, by every run.
type demo struct {
	url, key string
	wait     time.Duration
	c        *client.Client
	out      io.Writer
	progress io.Writer
	step     int
}

// demoRetry is how the demo repeats a call that may succeed on a repeat (no answer, or code
// 7, 9 or 10), with the same envelope id as the client does: enough attempts that a sandbox
// answering code 10 to three calls in ten (TIYIN_SANDBOX_FAULTS=error=0.3, as
// docs/integration.md suggests) still walks to the end.
var demoRetry = client.Retry{Attempts: 8, First: 100 * time.Millisecond, Max: 2 * time.Second}

// connect makes the client that sends the partner's key with every call.
func (d *demo) connect() error {
	c, err := client.New(d.url, d.key, client.WithTimeout(15*time.Second), client.WithRetry(demoRetry),
		client.WithUserAgent("tiyin-demo"))
	d.c = c
	return err
}

// show prints one step: what was asked and what came back.
func (d *demo) show(what, asked, answered string) {
	d.step++
	fmt.Fprintf(d.out, "%2d  %-26s %-34s %s\n", d.step, what, asked, answered)
}

// errStillWaiting is a background step that did not end within --wait.
var errStillWaiting = errors.New("still not there")

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
			return fmt.Errorf("%s: %w after %s", label, errStillWaiting, d.wait)
		}
		fmt.Fprintf(d.progress, "\r%c %s (%.1fs)", spin[i%len(spin)], label, time.Since(start).Seconds())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (d *demo) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := d.connect(); err != nil {
		return err
	}
	now, err := d.c.Sandbox.AdvanceClock(ctx, 0)
	var refused *client.Error
	switch {
	case errors.Is(err, client.CodeNotFound):
		return errors.New("this server has no sandbox (TIYIN_SANDBOX=false): the demo moves the sandbox clock")
	case err != nil && !errors.As(err, &refused):
		return fmt.Errorf("%w (is tiyin serve running at %s?)", err, d.url)
	case err != nil:
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

func demoClient() client.ClientData {
	return client.ClientData{PINFL: demoPINFL, LastName: "Karimov", FirstName: "Aziz", BirthDate: client.NewDate(1990, time.May, 17),
		Phone: "998901234567",
		Document: client.Document{Type: client.DocumentPassport, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
			IssuedDate: client.NewDate(2020, time.January, 10), ExpiryDate: client.NewDate(2030, time.January, 9)},
		Address: client.Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}
}

// demoApplications is how many applications the demo registers before it gives up on the
// microloan: an application whose stage the sandbox's faults kept from its gateway five times in
// a row ends FAILED (code 1027), and a partner's backend then starts a new one.
const demoApplications = 3

// errTechnicalFailure is an application that ended FAILED: worth a new application.
var errTechnicalFailure = errors.New("the application failed technically")

func (d *demo) microloan(ctx context.Context) error {
	var err error
	for range demoApplications {
		var app client.UUID
		if app, err = d.application(ctx); errors.Is(err, errTechnicalFailure) {
			fmt.Fprintf(d.out, "    %v: registering a new application\n", err)
			continue
		}
		if err != nil {
			return err
		}
		loanID, err := d.transferAndLoan(ctx, app)
		if err != nil {
			return err
		}
		return d.repay(ctx, loanID)
	}
	return err
}

// application registers an application and walks it to an issued loan.
func (d *demo) application(ctx context.Context) (client.UUID, error) {
	reg, err := d.c.Applications.Register(ctx, client.RegisterApplicationParams{
		ExternalID: uuid.New(), AgreementAccepted: true, PhoneNumber: "998901234567", ClientData: demoClient()})
	if err != nil {
		return client.UUID{}, err
	}
	app := reg.ApplicationID
	d.show("pre-scoring register", "pinfl "+demoPINFL, "applicationId "+app.String())
	info, err := d.awaitStatus(ctx, "pre-scoring", app, client.ApplicationPending)
	if err != nil {
		return app, err
	}
	pre := info.PreScoreResult
	if pre == nil {
		return app, errors.New("application info: PENDING without preScoreResult")
	}
	d.show("application info", "", fmt.Sprintf("%s %s/%s; limit %d tiyin, %s%%, %d months", info.Status, info.LastTask.Name, info.LastTask.Status,
		pre.AmountLimit, pre.Percent, pre.MonthPeriod))
	v, err := d.c.Applications.Verify(ctx, client.VerifyApplicationParams{
		ApplicationID: app, Amount: 300_000_000, Percent: pre.Percent, MonthPeriod: pre.MonthPeriod, BackupPhone: "998911112233"})
	if err != nil {
		return app, err
	}
	d.show("verify", "amount 300000000, 12 months", fmt.Sprintf("phoneCallRequired %v", v.PhoneCallRequired))
	if _, err = d.c.Applications.Issue(ctx, app, demoClient()); err != nil {
		return app, err
	}
	if info, err = d.awaitStatus(ctx, "issuance: five core-banking stages", app, client.ApplicationCompleted); err != nil {
		return app, err
	}
	d.show("issue", "same clientData", fmt.Sprintf("%s %s/%s", info.Status, info.LastTask.Name, info.LastTask.Status))
	return app, nil
}

// awaitStatus reads the application until it is in status want. A status it cannot leave ends
// the wait at once, naming the stage and why; FAILED is errTechnicalFailure.
func (d *demo) awaitStatus(ctx context.Context, label string, app client.UUID, want client.ApplicationStatus) (*client.Application, error) {
	var info *client.Application
	err := d.poll(ctx, label, func() (bool, error) {
		var err error
		if info, err = d.c.Applications.Info(ctx, app); err != nil {
			return false, err
		}
		switch info.Status {
		case want:
			return true, nil
		case client.ApplicationFailed:
			return false, fmt.Errorf("%s: %w (%s/%s, code %d: %s)", label, errTechnicalFailure, info.LastTask.Name, info.LastTask.Status,
				int(info.LastTask.ErrorCode), info.LastTask.ErrorMessage)
		case client.ApplicationRejected, client.ApplicationCanceled, client.ApplicationExpired:
			return false, fmt.Errorf("%s: application %s %s (%s/%s, code %d: %s)", label, app, info.Status, info.LastTask.Name,
				info.LastTask.Status, int(info.LastTask.ErrorCode), info.LastTask.ErrorMessage)
		}
		return false, nil
	})
	if errors.Is(err, errStillWaiting) && info != nil {
		err = fmt.Errorf("%w; last seen %s %s/%s", err, info.Status, info.LastTask.Name, info.LastTask.Status)
	}
	return info, err
}

// transferAndLoan sends the loan to a card, then moves the clock until the loan has its number.
func (d *demo) transferAndLoan(ctx context.Context, app client.UUID) (string, error) {
	ext := uuid.New()
	tr, err := d.c.Transfers.Create(ctx, client.CreateTransferParams{ExternalID: ext, ApplicationID: app, PAN: "8600123456789012",
		ReceiverCardType: client.ProcessingUzcard, CardHolderName: "AZIZ KARIMOV", Amount: 300_000_000})
	if err != nil {
		return "", err
	}
	txID := tr.TransactionID
	conf, err := d.c.Transfers.Confirm(ctx, ext, txID)
	if err != nil {
		return "", err
	}
	// A credit whose outcome tiyin has not yet learnt from the network stays PROCESSING: ask
	// for it until it settles, as a partner does.
	status := conf.Status
	if status == client.TransferProcessing {
		err = d.poll(ctx, "the network's credit", func() (bool, error) {
			r, err := d.c.Transfers.Status(ctx, ext, txID)
			if err != nil {
				return false, err
			}
			status = r.Status
			return status != client.TransferProcessing, nil
		})
		if err != nil {
			return "", err
		}
	}
	if status != client.TransferSuccess {
		return "", fmt.Errorf("transfer: status %s, want SUCCESS", status)
	}
	d.show("transfer to a card", "300000000 to 860012******9012", fmt.Sprintf("transactionId %s %s", txID, status))

	if _, err := d.c.Sandbox.AdvanceClock(ctx, 31*time.Minute); err != nil {
		return "", err
	}
	var loan *client.Loan
	err = d.poll(ctx, "contract number from core banking", func() (bool, error) {
		loan, err = d.c.Loans.Info(ctx, app)
		return err == nil && loan.LoanID != "", err
	})
	if err != nil {
		return "", err
	}
	d.show("advance clock, loan info", "31m", fmt.Sprintf("loanId %s, totalResidue %d, totalFine %d", loan.LoanID, loan.TotalResidue, loan.TotalFine))
	return loan.LoanID, nil
}

// repay reads the schedule, checks and pays part of the loan, and lists the payment.
func (d *demo) repay(ctx context.Context, loanID string) error {
	items, err := d.c.Loans.Schedule(ctx, loanID)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return errors.New("schedule: no instalments")
	}
	d.show("schedule", "loanId "+loanID, fmt.Sprintf("%d instalments; first on %s: %d tiyin", len(items),
		items[0].PaymentDate.Format(time.DateOnly), items[0].TotalRepaymentAmount))

	q, err := d.c.Repayments.Check(ctx, loanID)
	if err != nil {
		return err
	}
	d.show("repayment check", "", fmt.Sprintf("requestId %s, maxAmount %d", q.RequestID, q.MaxAmount))
	pay, err := d.c.Repayments.Pay(ctx, client.PayRepaymentParams{LoanID: loanID, PaymentType: client.PaymentEarly, RequestID: q.RequestID,
		DebitID: "DEMO-" + uuid.NewString(), Amount: 50_000_000, ProcessingType: client.ProcessingUzcard})
	if err != nil {
		return err
	}
	if pay.Status != client.RepaymentSuccess {
		return fmt.Errorf("repayment: status %s, want SUCCESS", pay.Status)
	}
	d.show("repayment pay", "EARLY 50000000", string(pay.Status))
	list, err := d.c.Loans.Payments(ctx, loanID)
	if err != nil {
		return err
	}
	if len(list) != 1 {
		return fmt.Errorf("payments: %d, want the one just made", len(list))
	}
	d.show("payments", "loanId "+loanID, fmt.Sprintf("%d payment: %d tiyin on %s", len(list), list[0].TotalRepaymentAmount,
		list[0].PaymentDate.Format(time.DateOnly)))
	return nil
}

func (d *demo) cards(ctx context.Context) error {
	order, err := d.c.CardOrders.Create(ctx, client.OrderCardParams{ExternalID: "DEMO-" + uuid.NewString(), PhoneNumber: "998901234567",
		ClientData: demoClient(), PrivacyPolicyAccepted: true, TermsAndConditionsAccepted: true})
	if err != nil {
		return err
	}
	var card *client.CardInfo
	err = d.poll(ctx, "card issuer", func() (bool, error) {
		r, err := d.c.CardOrders.Info(ctx, order.OrderID)
		if err != nil {
			return false, err
		}
		card = r.Card
		return r.Order.Status == client.CardOrderCompleted && card != nil, nil
	})
	if err != nil {
		return err
	}
	d.show("card order", "UZCARD for pinfl "+demoPINFL, fmt.Sprintf("COMPLETED: card %s %s", card.ID, card.PAN))

	pan, phone, err := demoCard()
	if err != nil {
		return err
	}
	att, err := d.c.Cards.Attach(ctx, client.AttachCardParams{PAN: pan, Expiry: time.Now().AddDate(3, 0, 0).Format("0601"),
		ProcessingType: client.ProcessingUzcard, PhoneNumber: phone})
	if err != nil {
		return err
	}
	d.show("card attach", pan[:6]+"******"+pan[12:]+", phone "+phone, fmt.Sprintf("cardId %s; SMS code sent", att.CardID))
	msgs, err := d.c.Sandbox.Outbox(ctx, phone)
	if err != nil {
		return err
	}
	if len(msgs) == 0 {
		return errors.New("sandbox SMS outbox is empty after attach")
	}
	if _, err = d.c.Cards.Confirm(ctx, att.CardID, msgs[0].Code); err != nil {
		return err
	}
	st, err := d.c.Cards.Status(ctx, att.CardID)
	if err != nil {
		return err
	}
	if st.Status != client.CardActive {
		return fmt.Errorf("attached card: status %s, want ACTIVE", st.Status)
	}
	d.show("card attach confirm", "code from the sandbox outbox", string(st.Status))
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
