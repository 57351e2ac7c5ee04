package domain_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// told renders what an aggregate recorded as "STATUS STAGE/STAGE_STATUS" lines, checking every
// event's partner and type on the way.
func told(t *testing.T, partnerID uuid.UUID, evs []domain.Event) []string {
	t.Helper()
	var out []string
	for _, e := range evs {
		if e.PartnerID != partnerID || e.ID == uuid.Nil || e.At.IsZero() {
			t.Errorf("event %+v: partner, id or time not set", e)
		}
		switch d := e.Data.(type) {
		case domain.ApplicationChanged:
			s := d.Status.String()
			if d.Status == domain.StatusCompleted {
				s = "LOAN_ISSUED"
			}
			out = append(out, fmt.Sprintf("%s %s/%s", s, d.Stage.Name, d.Stage.Status))
		default:
			out = append(out, fmt.Sprintf("%s %+v", e.Type(), d))
		}
	}
	return out
}

func TestApplicationTellsStatusChangesAndPendingStages(t *testing.T) {
	t.Parallel()
	start := []string{"IN_PROGRESS PRE_SCORING/IN_PROGRESS", "PENDING PRE_SCORING_INFO/COMPLETED"}
	tests := []struct {
		stage string
		want  []string
	}{
		{"registered", nil},
		{"choosing", start},
		{"call pending", append(slices.Clone(start), "PENDING CLIENT_VERIFICATION/PENDING")},
		{"rejected", append(slices.Clone(start), "REJECTED POST_SCORING/REJECTED")},
		{"expired", append(slices.Clone(start), "EXPIRED PRE_SCORING_INFO/EXPIRED")},
		{"canceled", append(slices.Clone(start), "PENDING CLIENT_VERIFICATION/COMPLETED", "CANCELED CLIENT_VERIFICATION/COMPLETED")},
		// the five issuance stages run inside IN_PROGRESS: only the status changes are told
		{"completed", append(slices.Clone(start), "PENDING CLIENT_VERIFICATION/COMPLETED",
			"IN_PROGRESS OPEN_ACCOUNT/NEW", "LOAN_ISSUED GET_LOAN_ISSUANCE_RESULT/COMPLETED")},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			t.Parallel()
			a := stage(t, tt.stage)
			if got := told(t, a.PartnerID(), a.TakeEvents()); !slices.Equal(got, tt.want) {
				t.Errorf("told\n%q\nwant\n%q", got, tt.want)
			}
			if again := a.TakeEvents(); len(again) != 0 {
				t.Errorf("events taken twice: %v", again)
			}
		})
	}
}

func TestRefusedOperationsTellNothing(t *testing.T) {
	t.Parallel()
	a := stage(t, "completed")
	a.TakeEvents()
	if err := a.Cancel(domain.InitiatorPartner, t0); err == nil {
		t.Fatal("cancel of a completed application succeeded")
	}
	if evs := a.TakeEvents(); len(evs) != 0 {
		t.Fatalf("a refused cancel told %v", evs)
	}
}

func TestLoanTransferCardAndRepaymentEvents(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	if err := loan.AssignContract("0012345678", at("2026-02-01")); err != nil {
		t.Fatal(err)
	}
	evs := loan.TakeEvents()
	if len(evs) != 1 || evs[0].Data != (domain.LoanContractAssigned{ApplicationID: loan.ApplicationID(), ContractNumber: "0012345678"}) {
		t.Fatalf("contract events %+v", evs)
	}

	r, err := domain.NewRepayment(uuid.New(), loan, 0, at("2026-02-10"))
	if err != nil {
		t.Fatal(err)
	}
	payoff := r.Quote().Payoff()
	if _, err := r.Pay(loan, domain.Payment{Type: domain.PaymentEarly, Amount: payoff, DebitID: "D", Network: domain.NetworkUzcard,
		TransactionID: uuid.New(), At: at("2026-02-10")}); err != nil {
		t.Fatal(err)
	}
	evs = r.TakeEvents()
	want := domain.RepaymentChanged{RequestID: r.ID(), ApplicationID: loan.ApplicationID(), ContractNumber: "0012345678",
		Status: domain.RepaymentSuccess, Amount: payoff, PaymentType: domain.PaymentEarly, Channel: domain.ChannelCard, LoanClosed: true}
	if len(evs) != 1 || evs[0].Data != want {
		t.Fatalf("repayment events %+v, want %+v", evs, want)
	}

	c := attachedCard(t, "123456")
	if evs := c.TakeEvents(); len(evs) != 0 {
		t.Fatalf("an unconfirmed attach told %v", evs)
	}
	if err := c.Confirm([]byte("123456"), cardNow); err != nil {
		t.Fatal(err)
	}
	if err := c.Activate("TOKEN", cardNow); err != nil {
		t.Fatal(err)
	}
	evs = c.TakeEvents()
	if len(evs) != 1 || evs[0].Type() != domain.EventCardAttached || evs[0].Data.(domain.CardAttachment).MaskedPAN != "860012******9012" {
		t.Fatalf("attach events %+v", evs)
	}
}

func TestTransferEvents(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, domain.Tashkent)
	newTransfer := func() *domain.Transfer {
		amount, _ := domain.ParseAmount(100_00)
		return domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: uuid.New(), ExternalID: uuid.New(),
			Amount: amount, CreditToken: "T", Network: domain.NetworkUzcard, Now: now})
	}
	tests := []struct {
		name string
		do   func(tr *domain.Transfer) error
		want []domain.TransferStatus
	}{
		{"created", func(*domain.Transfer) error { return nil }, nil},
		{"confirmed", func(tr *domain.Transfer) error { return tr.StartProcessing(now) }, []domain.TransferStatus{domain.TransferProcessing}},
		{"credited", func(tr *domain.Transfer) error {
			_ = tr.StartProcessing(now)
			return tr.Settle(true, "", now)
		}, []domain.TransferStatus{domain.TransferProcessing, domain.TransferSuccess}},
		{"refused", func(tr *domain.Transfer) error {
			_ = tr.StartProcessing(now)
			return tr.Settle(false, "card blocked", now)
		}, []domain.TransferStatus{domain.TransferProcessing, domain.TransferFailed}},
		{"expired", func(tr *domain.Transfer) error {
			tr.Expire(now.Add(domain.TransferTTL + time.Second))
			return nil
		}, []domain.TransferStatus{domain.TransferExpired}},
		{"settle refused", func(tr *domain.Transfer) error {
			if tr.Settle(true, "", now) == nil {
				return fmt.Errorf("settled a NEW transfer")
			}
			return nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newTransfer()
			if err := tt.do(tr); err != nil {
				t.Fatal(err)
			}
			var got []domain.TransferStatus
			for _, e := range tr.TakeEvents() {
				d := e.Data.(domain.TransferChanged)
				if d.TransactionID != tr.ID() || d.ExternalID != tr.ExternalID() || d.Amount != 100_00 {
					t.Errorf("event %+v does not name the transfer", d)
				}
				got = append(got, d.Status)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("told %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventTypesParse(t *testing.T) {
	t.Parallel()
	for _, typ := range domain.EventTypes() {
		if got, err := domain.ParseEventType(typ.String()); err != nil || got != typ {
			t.Errorf("%s: %v %v", typ, got, err)
		}
	}
	if _, err := domain.ParseEventType("LOAN_ISSUED"); err == nil {
		t.Error("LOAN_ISSUED is a status, not an event type")
	}
}
