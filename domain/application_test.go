package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

var t0 = time.Date(2026, 3, 31, 10, 0, 0, 0, domain.Tashkent)

func validClientData(t testing.TB) domain.ClientData {
	t.Helper()
	cd, err := domain.ParseClientData(domain.ClientDataInput{
		PINFL: "12345678901234", LastName: "Karimov", FirstName: "Aziz", BirthDate: "1990-05-17",
		DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567",
		DocumentIssuedBy: "Toshkent IIB", DocumentIssued: "2020-01-10", DocumentExpiry: "2030-01-09",
		Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1", Phone: "998901234567",
	}, domain.BusinessDate(t0))
	if err != nil {
		t.Fatalf("client data: %v", err)
	}
	return cd
}

func mustPercent(t testing.TB, s string) domain.Percent {
	t.Helper()
	p, err := domain.ParsePercent(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func offer(t testing.TB, amount int64, months int) domain.Offer {
	phone, _ := domain.ParsePhone("998901112233")
	return domain.Offer{Amount: domain.Amount(amount), Percent: mustPercent(t, "28"), MonthPeriod: months, BackupPhone: phone}
}

// stage drives a fresh application through real transitions up to the named point.
func stage(t *testing.T, name string) *domain.Application {
	t.Helper()
	phone, _ := domain.ParsePhone("998901234567")
	a, err := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: uuid.New(),
		ExternalID: uuid.New(), Phone: phone, ClientData: validClientData(t), AgreementAccepted: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	step := func(stageName domain.StageName, r domain.StageResult) {
		t.Helper()
		if err := a.BeginStage(stageName, now); err != nil {
			t.Fatalf("begin %s: %v", stageName, err)
		}
		if _, err := a.CompleteStage(stageName, r, domain.LoanProduct{LoanID: uuid.New()}, now); err != nil {
			t.Fatalf("complete %s: %v", stageName, err)
		}
	}
	done := domain.StageResult{Outcome: domain.OutcomeDone, Ref: "REF1",
		PreScore: domain.PreScoreResult{AmountLimit: 5_000_000_000, Percent: mustPercent(t, "28"), MonthPeriod: 12}}
	switch name {
	case "registered":
		return a
	case "prescoring":
		if err := a.BeginStage(domain.StagePreScoring, now); err != nil {
			t.Fatal(err)
		}
		return a
	case "polling":
		step(domain.StagePreScoring, done)
		return a
	}
	step(domain.StagePreScoring, done)
	step(domain.StagePreScoringInfo, done)
	switch name {
	case "choosing":
		return a
	case "expired":
		a.Expire(now.Add(73*time.Hour), 72*time.Hour)
		return a
	case "rejected":
		_ = a.Verify(offer(t, 1000, 6), domain.PostScoreResult{Approved: false, Reason: "no"}, now)
		return a
	case "call pending":
		_ = a.Verify(offer(t, 1000, 6), domain.PostScoreResult{Approved: true, PhoneCallRequired: true, CallCentrePhone: "998712000000"}, now)
		return a
	}
	_ = a.Verify(offer(t, 1000, 6), domain.PostScoreResult{Approved: true}, now)
	if name == "verified" {
		return a
	}
	if name == "canceled" {
		_ = a.Cancel(domain.InitiatorPartner, now)
		return a
	}
	if err := a.Issue(validClientData(t), now); err != nil {
		t.Fatal(err)
	}
	if name == "opening account" {
		return a
	}
	if name == "failed" {
		_ = a.BeginStage(domain.StageOpenAccount, now)
		_, _ = a.CompleteStage(domain.StageOpenAccount, domain.StageResult{Outcome: domain.OutcomeFailed}, domain.LoanProduct{}, now)
		return a
	}
	step(domain.StageOpenAccount, done)
	step(domain.StageOpenLoanApplication, done)
	step(domain.StageGetOpenLoanApplicationResult, done)
	if name == "loan issuance" {
		return a
	}
	step(domain.StageLoanIssuance, done)
	step(domain.StageGetLoanIssuanceResult, done)
	if name == "completed" {
		return a
	}
	t.Fatalf("unknown stage %q", name)
	return nil
}

func TestApplicationStagesMatchDesignTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stage  string
		status domain.ApplicationStatus
		last   domain.Stage
	}{
		{"registered", domain.StatusNew, domain.Stage{Name: domain.StagePreScoring, Status: domain.StageNew}},
		{"prescoring", domain.StatusInProgress, domain.Stage{Name: domain.StagePreScoring, Status: domain.StageInProgress}},
		{"polling", domain.StatusInProgress, domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageInProgress}},
		{"choosing", domain.StatusPending, domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageCompleted}},
		{"verified", domain.StatusPending, domain.Stage{Name: domain.StageClientVerification, Status: domain.StageCompleted}},
		{"call pending", domain.StatusPending, domain.Stage{Name: domain.StageClientVerification, Status: domain.StagePending}},
		{"rejected", domain.StatusRejected, domain.Stage{Name: domain.StagePostScoring, Status: domain.StageRejected, Error: domain.StageErrorPostScoringDeclined, Message: "no"}},
		{"opening account", domain.StatusInProgress, domain.Stage{Name: domain.StageOpenAccount, Status: domain.StageNew}},
		{"loan issuance", domain.StatusInProgress, domain.Stage{Name: domain.StageLoanIssuance, Status: domain.StageNew}},
		{"completed", domain.StatusCompleted, domain.Stage{Name: domain.StageGetLoanIssuanceResult, Status: domain.StageCompleted}},
		{"canceled", domain.StatusCanceled, domain.Stage{Name: domain.StageClientVerification, Status: domain.StageCompleted}},
		{"failed", domain.StatusFailed, domain.Stage{Name: domain.StageOpenAccount, Status: domain.StageFailed, Error: domain.StageErrorTechnicalFailure}},
		{"expired", domain.StatusExpired, domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageExpired}},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			t.Parallel()
			a := stage(t, tt.stage)
			if a.Status() != tt.status || a.Stage() != tt.last {
				t.Fatalf("got %s %+v, want %s %+v", a.Status(), a.Stage(), tt.status, tt.last)
			}
		})
	}
}

func TestApplicationOperationsPerStage(t *testing.T) {
	t.Parallel()
	type op struct {
		name string
		run  func(t *testing.T, a *domain.Application) error
	}
	ops := []op{
		{"cancel by partner", func(_ *testing.T, a *domain.Application) error { return a.Cancel(domain.InitiatorPartner, t0) }},
		{"cancel by client", func(_ *testing.T, a *domain.Application) error { return a.Cancel(domain.InitiatorClient, t0) }},
		{"verify", func(t *testing.T, a *domain.Application) error {
			return a.Verify(offer(t, 1000, 6), domain.PostScoreResult{Approved: true}, t0)
		}},
		{"complete verification", func(_ *testing.T, a *domain.Application) error { return a.CompleteVerification(t0) }},
		{"issue", func(t *testing.T, a *domain.Application) error { return a.Issue(validClientData(t), t0) }},
	}
	wrong, notClient := domain.ErrWrongState, domain.ErrCancelNotAllowed
	// want[stage] lists the error of each op in the order above; nil means allowed.
	want := map[string][]error{
		"registered":      {nil, notClient, wrong, wrong, wrong},
		"prescoring":      {nil, notClient, wrong, wrong, wrong},
		"polling":         {nil, notClient, wrong, wrong, wrong},
		"choosing":        {nil, nil, nil, wrong, wrong},
		"verified":        {nil, notClient, nil, wrong, nil},
		"call pending":    {nil, notClient, nil, nil, wrong},
		"opening account": {nil, notClient, wrong, wrong, wrong},
		"loan issuance":   {wrong, wrong, wrong, wrong, wrong},
		"completed":       {wrong, wrong, wrong, wrong, wrong},
		"rejected":        {wrong, wrong, wrong, wrong, wrong},
		"canceled":        {wrong, wrong, wrong, wrong, wrong},
		"failed":          {wrong, wrong, wrong, wrong, wrong},
		"expired":         {wrong, wrong, wrong, wrong, wrong},
	}
	for stageName, errs := range want {
		for i, o := range ops {
			t.Run(stageName+"/"+o.name, func(t *testing.T) {
				t.Parallel()
				a := stage(t, stageName)
				before := a.State()
				err := o.run(t, a)
				if errs[i] == nil {
					if err != nil {
						t.Fatalf("want allowed, got %v", err)
					}
					return
				}
				if !errors.Is(err, errs[i]) {
					t.Fatalf("want %v, got %v", errs[i], err)
				}
				if a.State() != before {
					t.Fatal("a refused operation changed the application")
				}
			})
		}
	}
}

func TestVerifyRefusesOfferOutsidePreScore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		amount int64
		months int
		pct    string
		ok     bool
	}{
		{"at the limits", 5_000_000_000, 12, "28", true},
		{"one month", 1, 1, "28.00", true},
		{"amount above limit", 5_000_000_001, 12, "28", false},
		{"zero months", 1000, 0, "28", false},
		{"months above limit", 1000, 13, "28", false},
		{"other percent", 1000, 6, "27.99", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := stage(t, "choosing")
			o := offer(t, tt.amount, tt.months)
			o.Percent = mustPercent(t, tt.pct)
			err := a.Verify(o, domain.PostScoreResult{Approved: true}, t0)
			if tt.ok != (err == nil) {
				t.Fatalf("ok=%v, err=%v", tt.ok, err)
			}
			if !tt.ok && !errors.Is(err, domain.ErrOfferOutOfRange) {
				t.Fatalf("want ErrOfferOutOfRange, got %v", err)
			}
		})
	}
}

func TestIssueNamesDifferingClientDataFields(t *testing.T) {
	t.Parallel()
	a := stage(t, "verified")
	in := validClientData(t).Fields()
	in.FirstName, in.DocumentNumber = "Bobur", "7654321"
	other, err := domain.ParseClientData(in, domain.BusinessDate(t0))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Issue(other, t0)
	if !errors.Is(err, domain.ErrClientDataMismatch) {
		t.Fatalf("want mismatch, got %v", err)
	}
	if got := err.Error(); got != "clientData differs from the data given at pre-scoring: firstName, document.number" {
		t.Fatalf("message %q", got)
	}
}

func TestIssueIgnoresCaseSpacesAndApostropheVariants(t *testing.T) {
	t.Parallel()
	a := stage(t, "verified")
	in := validClientData(t).Fields()
	in.LastName, in.FirstName = "  karimov ", "aziz"
	other, err := domain.ParseClientData(in, domain.BusinessDate(t0))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Issue(other, t0); err != nil {
		t.Fatalf("normalised data must match: %v", err)
	}
}

// TestCallsThatNeverReachedTheBankRetryThenFail: a call that certainly never reached core
// banking is retried with backoff and the application is FAILED (1027) after MaxStageAttempts.
func TestCallsThatNeverReachedTheBankRetryThenFail(t *testing.T) {
	t.Parallel()
	a := stage(t, "opening account")
	now := t0
	for i := 1; i <= domain.MaxStageAttempts; i++ {
		if err := a.BeginStage(domain.StageOpenAccount, now); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if _, err := a.CompleteStage(domain.StageOpenAccount, domain.StageResult{Outcome: domain.OutcomeNotReached, Message: "no connection"}, domain.LoanProduct{}, now); err != nil {
			t.Fatal(err)
		}
		if i < domain.MaxStageAttempts {
			if a.Status() != domain.StatusInProgress {
				t.Fatalf("attempt %d: status %s", i, a.Status())
			}
			if _, due := a.DueStage(now); due {
				t.Fatal("a retry must wait for its backoff")
			}
			now = a.NextRunAt()
		}
	}
	if a.Status() != domain.StatusFailed || a.Stage().Error != domain.StageErrorTechnicalFailure {
		t.Fatalf("got %s %+v", a.Status(), a.Stage())
	}
}

// TestUnknownOutcomesAreAskedAgainAndNeverFail: a call whose outcome is unknown (the bank may
// have acted) is asked again with backoff growing to an hour, however many times, showing the
// stage IN_PROGRESS and when the outcome went unknown; the answer that comes completes it.
func TestUnknownOutcomesAreAskedAgainAndNeverFail(t *testing.T) {
	t.Parallel()
	a := stage(t, "opening account")
	now := t0
	for i := 1; i <= 4*domain.MaxStageAttempts; i++ {
		if err := a.BeginStage(domain.StageOpenAccount, now); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if _, err := a.CompleteStage(domain.StageOpenAccount, domain.StageResult{Outcome: domain.OutcomeUnknown, Message: "no answer within 5s"}, domain.LoanProduct{}, now); err != nil {
			t.Fatal(err)
		}
		if a.Status() != domain.StatusInProgress || a.Stage() != (domain.Stage{Name: domain.StageOpenAccount, Status: domain.StageInProgress}) {
			t.Fatalf("attempt %d: %s %+v", i, a.Status(), a.Stage())
		}
		if got := a.State().UnknownSince; !got.Equal(t0) {
			t.Fatalf("attempt %d: unknown since %v, want the first unanswered call's %v", i, got, t0)
		}
		wait := a.NextRunAt().Sub(now)
		if want := min(time.Second<<(i-1), time.Hour); wait != want {
			t.Fatalf("attempt %d: waits %v, want %v", i, wait, want)
		}
		now = a.NextRunAt()
	}
	if err := a.BeginStage(domain.StageOpenAccount, now); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CompleteStage(domain.StageOpenAccount, domain.StageResult{Outcome: domain.OutcomeDone, Ref: "20208000000000000001"}, domain.LoanProduct{}, now); err != nil {
		t.Fatal(err)
	}
	if a.Stage().Name != domain.StageOpenLoanApplication || !a.State().UnknownSince.IsZero() {
		t.Fatalf("after the answer: %+v, unknown since %v", a.Stage(), a.State().UnknownSince)
	}
}

func TestPendingAnswersArePolled(t *testing.T) {
	t.Parallel()
	a := stage(t, "polling")
	a.TakeStageRecords()
	if err := a.BeginStage(domain.StagePreScoringInfo, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CompleteStage(domain.StagePreScoringInfo, domain.StageResult{Outcome: domain.OutcomePending}, domain.LoanProduct{}, t0); err != nil {
		t.Fatal(err)
	}
	if steps := a.TakeStageRecords(); len(steps) != 0 {
		t.Fatalf("a pending poll is kept in the attempts: %+v", steps)
	}
	if a.Stage() != (domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageInProgress}) {
		t.Fatalf("stage %+v", a.Stage())
	}
	if got := a.NextRunAt().Sub(t0); got != domain.PollInterval {
		t.Fatalf("next poll in %v", got)
	}
}

func TestPreScoringDeclineRejects(t *testing.T) {
	t.Parallel()
	a := stage(t, "polling")
	_ = a.BeginStage(domain.StagePreScoringInfo, t0)
	_, _ = a.CompleteStage(domain.StagePreScoringInfo, domain.StageResult{Outcome: domain.OutcomeRefused, Message: "SCORE_LOW"}, domain.LoanProduct{}, t0)
	want := domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageRejected, Error: domain.StageErrorPreScoringDeclined, Message: "SCORE_LOW"}
	if a.Status() != domain.StatusRejected || a.Stage() != want || a.PreScore() != nil {
		t.Fatalf("got %s %+v", a.Status(), a.Stage())
	}
}

func TestCompletedIssuanceCreatesLoanFromOffer(t *testing.T) {
	t.Parallel()
	a := stage(t, "loan issuance")
	done := domain.StageResult{Outcome: domain.OutcomeDone, Ref: "R"}
	_ = a.BeginStage(domain.StageLoanIssuance, t0)
	if _, err := a.CompleteStage(domain.StageLoanIssuance, done, domain.LoanProduct{}, t0); err != nil {
		t.Fatal(err)
	}
	_ = a.BeginStage(domain.StageGetLoanIssuanceResult, t0)
	id := uuid.New()
	loan, err := a.CompleteStage(domain.StageGetLoanIssuanceResult, done, domain.LoanProduct{LoanID: id}, t0)
	if err != nil || loan == nil {
		t.Fatalf("loan %v err %v", loan, err)
	}
	if loan.ID() != id || loan.Amount() != 1000 || loan.MonthPeriod() != 6 || loan.Rate().Hundredths() != 2800 || loan.ContractNumber() != "" {
		t.Fatalf("loan %+v", loan.State())
	}
}

func TestStaleStageResultIsDropped(t *testing.T) {
	t.Parallel()
	a := stage(t, "opening account")
	_ = a.BeginStage(domain.StageOpenAccount, t0)
	if err := a.Cancel(domain.InitiatorPartner, t0); err != nil {
		t.Fatal(err)
	}
	_, err := a.CompleteStage(domain.StageOpenAccount, domain.StageResult{Outcome: domain.OutcomeDone}, domain.LoanProduct{}, t0)
	if !errors.Is(err, domain.ErrStaleStage) || a.Status() != domain.StatusCanceled {
		t.Fatalf("err %v status %s", err, a.Status())
	}
}

func TestExpiryAfterTTLSinceEnteringPending(t *testing.T) {
	t.Parallel()
	ttl := 72 * time.Hour
	a := stage(t, "choosing")
	if a.Expire(t0.Add(ttl), ttl) {
		t.Fatal("expired at exactly the TTL")
	}
	if !a.Expire(t0.Add(ttl+time.Second), ttl) || a.Status() != domain.StatusExpired || a.Stage().Status != domain.StageExpired {
		t.Fatalf("got %s %+v", a.Status(), a.Stage())
	}
	b := stage(t, "opening account")
	if b.Expire(t0.Add(1000*time.Hour), ttl) {
		t.Fatal("an application waiting for the bank must not expire")
	}
}
