package domain

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Stage is where an application's process stands (lastTask on the wire): the stage that last
// ran or runs now, its status and, when it ended badly, why (Error) and what the gateway said.
type Stage struct {
	Name    StageName
	Status  StageStatus
	Error   StageError
	Message string
}

// PreScoreResult is the offer range the scoring approved: the client picks an offer within it.
type PreScoreResult struct {
	AmountLimit int64
	Percent     Percent
	MonthPeriod int
}

// Offer is what the client chose at verify.
type Offer struct {
	Amount      Amount
	Percent     Percent
	MonthPeriod int
	BackupPhone Phone
}

// PostScoreResult is the bank's answer to an offer.
type PostScoreResult struct {
	Approved          bool
	Reason            string
	PhoneCallRequired bool
	CallCentrePhone   string
}

// Background timing of the application process.
const (
	// PollInterval is how often a pending gateway answer is asked for again.
	PollInterval = 2 * time.Second
	// StageLease is how long a started stage may run before the reconciler assumes its worker
	// died and runs it again (with the same idempotency key).
	StageLease = 30 * time.Second
	// MaxStageAttempts is how many calls that never reached the bank a stage survives before
	// it is FAILED (a call whose outcome is unknown never counts: it is asked again).
	MaxStageAttempts = 5
)

// Application is a microloan application: the aggregate that carries a client from
// pre-scoring to an issued loan. Its methods are the only way its state changes.
type Application struct {
	id, partnerID, externalID uuid.UUID
	phone                     Phone
	clientData                ClientData
	status                    ApplicationStatus
	stage                     Stage
	preScore                  *PreScoreResult
	offer                     *Offer
	callCentrePhone           string
	accountNumber             string
	coreRef                   string
	requestID                 string
	attempts                  int
	nextRunAt                 time.Time
	unknownSince              time.Time
	pendingSince              time.Time
	verificationRequestedAt   time.Time
	createdAt, updatedAt      time.Time
	events
	stageRecords
}

// NewApplicationParams are the inputs of pre-scoring registration.
type NewApplicationParams struct {
	ID, PartnerID, ExternalID uuid.UUID
	Phone                     Phone
	ClientData                ClientData
	AgreementAccepted         bool
	Now                       time.Time
}

// NewApplication registers an application: status NEW, stage PRE_SCORING/NEW, pre-scoring due
// at once.
func NewApplication(p NewApplicationParams) (*Application, error) {
	var fs Fieldset
	if !p.AgreementAccepted {
		fs.Add("params.isAgreementAccepted", "must be true")
	}
	if p.Phone.IsZero() {
		fs.Add("params.phoneNumber", "must not be empty")
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	return &Application{
		id: p.ID, partnerID: p.PartnerID, externalID: p.ExternalID,
		phone: p.Phone, clientData: p.ClientData,
		status: StatusNew, stage: Stage{Name: StagePreScoring, Status: StageNew},
		nextRunAt: p.Now, createdAt: p.Now, updatedAt: p.Now,
	}, nil
}

// ApplicationState is every stored field of an application, for repositories only.
type ApplicationState struct {
	ID, PartnerID, ExternalID uuid.UUID
	Phone                     Phone
	ClientData                ClientData
	Status                    ApplicationStatus
	Stage                     Stage
	PreScore                  *PreScoreResult
	Offer                     *Offer
	CallCentrePhone           string
	AccountNumber             string
	CoreRef                   string
	RequestID                 string
	Attempts                  int
	NextRunAt                 time.Time
	// UnknownSince is when the current stage's gateway call first went unanswered; zero when
	// its outcome is known.
	UnknownSince            time.Time
	PendingSince            time.Time
	VerificationRequestedAt time.Time
	CreatedAt, UpdatedAt    time.Time
}

// RestoreApplication rebuilds an application from storage. Only repositories may call it: it
// trusts the stored state and skips every rule of the constructor and the methods.
func RestoreApplication(s ApplicationState) *Application {
	return &Application{
		id: s.ID, partnerID: s.PartnerID, externalID: s.ExternalID, phone: s.Phone,
		clientData: s.ClientData, status: s.Status, stage: s.Stage, preScore: s.PreScore,
		offer: s.Offer, callCentrePhone: s.CallCentrePhone, accountNumber: s.AccountNumber,
		coreRef: s.CoreRef, requestID: s.RequestID, attempts: s.Attempts, nextRunAt: s.NextRunAt, unknownSince: s.UnknownSince,
		pendingSince: s.PendingSince, verificationRequestedAt: s.VerificationRequestedAt,
		createdAt: s.CreatedAt, updatedAt: s.UpdatedAt,
	}
}

// State returns every field, for repositories to store.
func (a *Application) State() ApplicationState {
	return ApplicationState{
		ID: a.id, PartnerID: a.partnerID, ExternalID: a.externalID, Phone: a.phone,
		ClientData: a.clientData, Status: a.status, Stage: a.stage, PreScore: a.preScore,
		Offer: a.offer, CallCentrePhone: a.callCentrePhone, AccountNumber: a.accountNumber,
		CoreRef: a.coreRef, RequestID: a.requestID, Attempts: a.attempts, NextRunAt: a.nextRunAt, UnknownSince: a.unknownSince,
		PendingSince: a.pendingSince, VerificationRequestedAt: a.verificationRequestedAt,
		CreatedAt: a.createdAt, UpdatedAt: a.updatedAt,
	}
}

// ID returns the application id.
func (a *Application) ID() uuid.UUID { return a.id }

// PartnerID returns the owning partner.
func (a *Application) PartnerID() uuid.UUID { return a.partnerID }

// ExternalID returns the partner's id of the application.
func (a *Application) ExternalID() uuid.UUID { return a.externalID }

// Phone returns the client's phone given at registration.
func (a *Application) Phone() Phone { return a.phone }

// ClientData returns the client's identity given at registration.
func (a *Application) ClientData() ClientData { return a.clientData }

// Status returns the application status.
func (a *Application) Status() ApplicationStatus { return a.status }

// Stage returns the last stage.
func (a *Application) Stage() Stage { return a.stage }

// Correlate keeps the id of the partner's request that started the application's background
// work (registration, issuance): the log lines of that work name it. An empty id changes
// nothing.
func (a *Application) Correlate(requestID string) {
	if requestID != "" {
		a.requestID = requestID
	}
}

// RequestID is the id of the partner's request that started the application's background work.
func (a *Application) RequestID() string { return a.requestID }

// Attempts counts the current stage's calls that never reached the bank.
func (a *Application) Attempts() int { return a.attempts }

// PreScore returns the approved offer range, nil until approval.
func (a *Application) PreScore() *PreScoreResult { return a.preScore }

// ApplicationSummary is what application info shows of an application: whose it is, where it
// stands, and the offer range the scoring approved. It holds none of the client's personal
// data, so a store reads it without unsealing any.
type ApplicationSummary struct {
	ID, PartnerID, ExternalID uuid.UUID
	Status                    ApplicationStatus
	Stage                     Stage
	PreScore                  *PreScoreResult
}

// Summary returns what application info shows of the application.
func (a *Application) Summary() ApplicationSummary {
	return ApplicationSummary{ID: a.id, PartnerID: a.partnerID, ExternalID: a.externalID, Status: a.status,
		Stage: a.stage, PreScore: a.preScore}
}

// Offer returns the offer the client chose at verify, nil before.
func (a *Application) Offer() *Offer { return a.offer }

// AccountNumber returns the demand account core banking opened, empty before.
func (a *Application) AccountNumber() string { return a.accountNumber }

// CoreRef returns core banking's reference of the running stage (loan application or
// issuance), empty when none.
func (a *Application) CoreRef() string { return a.coreRef }

// NextRunAt returns when background work is next due; zero when none is.
func (a *Application) NextRunAt() time.Time { return a.nextRunAt }

// set moves the application to status and stage. A new status is told to the partner, and so
// is a new stage while the application waits in PENDING: that is when the partner or the client
// has something to do next.
func (a *Application) set(status ApplicationStatus, stage Stage, now time.Time) {
	if status == StatusPending && a.status != StatusPending {
		a.pendingSince = now
	}
	told := status != a.status || (status == StatusPending && stage != a.stage)
	a.status, a.stage, a.updatedAt = status, stage, now
	if told {
		a.record(a.partnerID, now, ApplicationChanged{ApplicationID: a.id, ExternalID: a.externalID, Status: status, Stage: stage})
	}
}

func (a *Application) refuse(op string) error {
	return StateError{Op: op, Status: a.status, Stage: a.stage}
}

// choosingLimits reports whether the client is choosing limits after an approved pre-scoring.
func (a *Application) choosingLimits() bool {
	return a.status == StatusPending && a.stage == Stage{Name: StagePreScoringInfo, Status: StageCompleted}
}

// verifiable reports whether verify may run: PENDING after pre-scoring, until issue.
func (a *Application) verifiable() bool {
	return a.status == StatusPending && a.preScore != nil &&
		(a.stage.Name == StagePreScoringInfo || a.stage.Name == StageClientVerification)
}

// CheckOffer tells whether verify may run now with this offer, without changing anything, so
// that the post-scoring call is only made for an offer that can be accepted.
func (a *Application) CheckOffer(o Offer) error {
	if !a.verifiable() {
		return a.refuse("verify")
	}
	var out []string
	if o.Amount.Tiyin() > a.preScore.AmountLimit {
		out = append(out, fmt.Sprintf("amount %d is above amountLimit %d", o.Amount, a.preScore.AmountLimit))
	}
	if o.MonthPeriod < 1 || o.MonthPeriod > a.preScore.MonthPeriod {
		out = append(out, fmt.Sprintf("monthPeriod %d is outside 1..%d", o.MonthPeriod, a.preScore.MonthPeriod))
	}
	if o.Percent != a.preScore.Percent {
		out = append(out, fmt.Sprintf("percent %s differs from %s", o.Percent, a.preScore.Percent))
	}
	if len(out) > 0 {
		return fmt.Errorf("%w: %s", ErrOfferOutOfRange, strings.Join(out, "; "))
	}
	return nil
}

// Verify records the offer and the bank's post-scoring answer: approved without a call →
// CLIENT_VERIFICATION/COMPLETED, approved with a call → CLIENT_VERIFICATION/PENDING, declined →
// REJECTED. It may be called again while the application waits, to change the offer.
func (a *Application) Verify(o Offer, r PostScoreResult, now time.Time) error {
	if err := a.CheckOffer(o); err != nil {
		return err
	}
	a.offer = &o
	a.callCentrePhone = ""
	switch {
	case !r.Approved:
		a.set(StatusRejected, Stage{Name: StagePostScoring, Status: StageRejected,
			Error: StageErrorPostScoringDeclined, Message: r.Reason}, now)
	case r.PhoneCallRequired:
		a.callCentrePhone = r.CallCentrePhone
		a.verificationRequestedAt = now
		a.set(StatusPending, Stage{Name: StageClientVerification, Status: StagePending}, now)
	default:
		a.set(StatusPending, Stage{Name: StageClientVerification, Status: StageCompleted}, now)
	}
	return nil
}

// awaitsVerification reports whether the client's phone call is still to be made.
func (a *Application) awaitsVerification() bool {
	return a.status == StatusPending && a.stage == (Stage{Name: StageClientVerification, Status: StagePending})
}

// CompleteVerification records that the client finished the required phone call.
func (a *Application) CompleteVerification(now time.Time) error {
	if !a.awaitsVerification() {
		return a.refuse("verification complete")
	}
	a.set(StatusPending, Stage{Name: StageClientVerification, Status: StageCompleted}, now)
	return nil
}

// VerificationNotConfirmed accepts the call centre's word that the call did not confirm the
// client (not reached, or not the client): the application waits on, for another call, its
// TTL or a cancel, and nothing of it changes. Refused unless the call is still to be made.
func (a *Application) VerificationNotConfirmed() error {
	if !a.awaitsVerification() {
		return a.refuse("verification not confirmed")
	}
	return nil
}

// Issue starts issuance, after verification completed, when clientData matches the data given
// at pre-scoring. The issuance stages then run in the background.
func (a *Application) Issue(cd ClientData, now time.Time) error {
	if a.status != StatusPending || a.stage != (Stage{Name: StageClientVerification, Status: StageCompleted}) {
		return a.refuse("issue")
	}
	if diff := a.clientData.Diff(cd); len(diff) > 0 {
		return fmt.Errorf("%w: %s", ErrClientDataMismatch, strings.Join(diff, ", "))
	}
	a.set(StatusInProgress, Stage{Name: StageOpenAccount, Status: StageNew}, now)
	a.attempts, a.nextRunAt = 0, now
	return nil
}

// Cancel applies rule 3.5.1: the client only while choosing limits; the partner in any
// non-terminal status until the LOAN_ISSUANCE stage is recorded.
func (a *Application) Cancel(by CancelInitiator, now time.Time) error {
	if a.status.Terminal() || a.stage.Name == StageLoanIssuance || a.stage.Name == StageGetLoanIssuanceResult {
		return a.refuse("cancel")
	}
	if by == InitiatorClient && !a.choosingLimits() {
		return fmt.Errorf("%w: CLIENT may cancel only while choosing limits (status PENDING, stage PRE_SCORING_INFO/COMPLETED); status is %s, stage %s/%s",
			ErrCancelNotAllowed, a.status, a.stage.Name, a.stage.Status)
	}
	a.set(StatusCanceled, a.stage, now)
	a.nextRunAt = time.Time{}
	return nil
}

// Expired reports whether the application has waited in PENDING for longer than ttl at now,
// and so is EXPIRED whether or not that is recorded yet; a ttl of 0 is none.
func (a *Application) Expired(now time.Time, ttl time.Duration) bool {
	return ttl > 0 && a.status == StatusPending && now.Sub(a.pendingSince) > ttl
}

// Expire ends an application that has waited in PENDING for longer than ttl. It reports
// whether anything changed.
func (a *Application) Expire(now time.Time, ttl time.Duration) bool {
	if !a.Expired(now, ttl) {
		return false
	}
	last := a.stage
	last.Status = StageExpired
	a.set(StatusExpired, last, now)
	a.nextRunAt = time.Time{}
	return true
}
