package client

import "context"

// Applications are the calls of a microloan application (endpoints 1–5): register it for
// pre-scoring, send the client's offer, issue the loan, cancel, and read it. The loan is
// issued by background stages: follow them with Info or the APPLICATION_STATUS_CHANGED event.
type Applications struct{ c *Client }

// ClientData is the client's identity from the identity provider (MyID): personal data, which
// no call returns. The optional fields are left out when empty.
type ClientData struct {
	PINFL      string   `json:"pinfl"`
	INN        string   `json:"inn,omitempty"`
	LastName   string   `json:"lastName"`
	FirstName  string   `json:"firstName"`
	MiddleName string   `json:"middleName,omitempty"`
	BirthDate  Date     `json:"birthDate"`
	Gender     Gender   `json:"gender,omitempty"`
	Document   Document `json:"document"`
	Address    Address  `json:"address"`
	Email      string   `json:"email,omitempty"`
	Phone      string   `json:"phone"` // 12 digits starting with 998
}

// Document is a client's identity document.
type Document struct {
	Type       DocumentType `json:"type"`
	Series     string       `json:"series"` // two capital letters
	Number     string       `json:"number"` // seven digits
	IssuedBy   string       `json:"issuedBy"`
	IssuedDate Date         `json:"issuedDate"`
	ExpiryDate Date         `json:"expiryDate"`
}

// Address is a client's address.
type Address struct {
	Region   string `json:"region"`
	District string `json:"district"`
	Address  string `json:"address"`
}

// RegisterApplicationParams register an application. ExternalID, the partner's own id of it,
// is unique per partner (code 1011); AgreementAccepted must be true.
type RegisterApplicationParams struct {
	ExternalID        UUID       `json:"externalId"`
	AgreementAccepted bool       `json:"isAgreementAccepted"`
	PhoneNumber       string     `json:"phoneNumber"`
	ClientData        ClientData `json:"clientData"`
}

// RegisterApplicationResult is the new application's id.
type RegisterApplicationResult struct {
	ApplicationID UUID   `json:"applicationId"`
	Message       string `json:"message"`
}

// Register creates an application (ApplicationNew); pre-scoring then runs in the background.
// Read it with Info until it is ApplicationPending (approved: PreScoreResult is set) or
// ApplicationRejected.
func (a *Applications) Register(ctx context.Context, p RegisterApplicationParams, opts ...CallOption) (*RegisterApplicationResult, error) {
	return call[RegisterApplicationResult](ctx, a.c, a.c.api.RegisterApplicationWithBody, p, opts)
}

// CancelApplicationResult is the canceled application.
type CancelApplicationResult struct {
	ApplicationID UUID   `json:"applicationId"`
	Message       string `json:"message"`
}

// Cancel cancels an application: the client (InitiatorClient) only while choosing the offer,
// the partner until the loan's issuance is recorded (codes 1002, 1003).
func (a *Applications) Cancel(ctx context.Context, applicationID UUID, by Initiator, opts ...CallOption) (*CancelApplicationResult, error) {
	return call[CancelApplicationResult](ctx, a.c, a.c.api.CancelApplicationWithBody, cancelParams{applicationID, by}, opts)
}

type cancelParams struct {
	ApplicationID UUID      `json:"applicationId"`
	Initiator     Initiator `json:"initiator"`
}

// VerifyApplicationParams are the client's chosen offer, within the application's
// PreScoreResult: Amount in tiyin up to AmountLimit, MonthPeriod from 1 to its MonthPeriod,
// Percent equal to its Percent (code 1004).
type VerifyApplicationParams struct {
	ApplicationID UUID    `json:"applicationId"`
	Amount        int64   `json:"amount"`
	Percent       Percent `json:"percent"`
	MonthPeriod   int     `json:"monthPeriod"`
	BackupPhone   string  `json:"backupPhone"`
}

// VerifyApplicationResult says whether the client must call the bank (PhoneNumber, the call
// centre) before the loan may be issued.
type VerifyApplicationResult struct {
	Message           string `json:"message"`
	PhoneNumber       string `json:"phoneNumber"`
	PhoneCallRequired bool   `json:"phoneCallRequired"`
}

// Verify sends the client's offer after pre-scoring; post-scoring runs at once. It may be
// called again to change the offer until the loan is issued.
func (a *Applications) Verify(ctx context.Context, p VerifyApplicationParams, opts ...CallOption) (*VerifyApplicationResult, error) {
	return call[VerifyApplicationResult](ctx, a.c, a.c.api.VerifyApplicationWithBody, p, opts)
}

// IssueApplicationResult is tiyin's word that issuance started.
type IssueApplicationResult struct {
	Message string `json:"message"`
}

// Issue opens the account and starts the loan's issuance, once verification is complete.
// clientData must equal the data given at Register (code 1005 names the fields that differ).
// The application is then ApplicationInProgress until ApplicationCompleted.
func (a *Applications) Issue(ctx context.Context, applicationID UUID, clientData ClientData, opts ...CallOption) (*IssueApplicationResult, error) {
	return call[IssueApplicationResult](ctx, a.c, a.c.api.IssueApplicationWithBody, issueParams{applicationID, clientData}, opts)
}

type issueParams struct {
	ApplicationID UUID       `json:"applicationId"`
	ClientData    ClientData `json:"clientData"`
}

// Application is an application's status and the stage that last ran.
type Application struct {
	ApplicationID UUID              `json:"applicationId"`
	ExternalID    UUID              `json:"externalId"`
	Status        ApplicationStatus `json:"status"`
	LastTask      LastTask          `json:"lastTask"`
	// PreScoreResult is the range of offers pre-scoring approved; nil until it approves.
	PreScoreResult *PreScoreResult `json:"preScoreResult"`
}

// LastTask is the stage of an application that last ran, and how it ended.
type LastTask struct {
	Name   TaskName   `json:"name"`
	Status TaskStatus `json:"status"`
	// ErrorCode is one of CodePreScoringDeclined … CodeTechnicalFailure (1024–1027) for a
	// refusal or failure, 0 otherwise; ErrorMessage says why, "" otherwise.
	ErrorCode    Code   `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

// PreScoreResult is the range of offers pre-scoring approved: up to AmountLimit tiyin, for 1
// to MonthPeriod months, at Percent.
type PreScoreResult struct {
	ExternalID  UUID    `json:"externalId"`
	AmountLimit int64   `json:"amountLimit"`
	Percent     Percent `json:"percent"`
	MonthPeriod int     `json:"monthPeriod"`
}

// Info reads an application (code 1001 when it is unknown). It stores nothing.
func (a *Applications) Info(ctx context.Context, applicationID UUID, opts ...CallOption) (*Application, error) {
	return call[Application](ctx, a.c, a.c.api.GetApplicationWithBody, applicationIDParams{applicationID}, opts)
}

// Find reads the application the partner registered with externalID, its own id of it: the
// way back to an ApplicationID lost when Register's answer never came (Register again with the
// same externalID answers code 1011, naming the application too). Code 1001 when the partner
// registered none with it. It stores nothing.
func (a *Applications) Find(ctx context.Context, externalID UUID, opts ...CallOption) (*Application, error) {
	return call[Application](ctx, a.c, a.c.api.FindApplicationWithBody, findParams{externalID}, opts)
}

type findParams struct {
	ExternalID UUID `json:"externalId"`
}

// applicationIDParams are the params of the calls that take only an application's id.
type applicationIDParams struct {
	ApplicationID UUID `json:"applicationId"`
}
