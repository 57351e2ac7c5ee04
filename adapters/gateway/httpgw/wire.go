package httpgw

import (
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The protocol's JSON bodies (gateway.yaml). Amounts are integer tiyin, percents decimal
// strings with two places, dates YYYY-MM-DD, expiries YYMM.

type clientData struct {
	PINFL            string `json:"pinfl"`
	INN              string `json:"inn,omitempty"`
	LastName         string `json:"lastName"`
	FirstName        string `json:"firstName"`
	MiddleName       string `json:"middleName,omitempty"`
	BirthDate        string `json:"birthDate"`
	Gender           string `json:"gender,omitempty"`
	DocumentType     string `json:"documentType"`
	DocumentSeries   string `json:"documentSeries"`
	DocumentNumber   string `json:"documentNumber"`
	DocumentIssuedBy string `json:"documentIssuedBy"`
	DocumentIssued   string `json:"documentIssuedDate"`
	DocumentExpiry   string `json:"documentExpiryDate"`
	Region           string `json:"region"`
	District         string `json:"district"`
	Address          string `json:"address"`
	Email            string `json:"email,omitempty"`
	Phone            string `json:"phone"`
}

func wireClient(c domain.ClientData) clientData {
	f := c.Fields()
	return clientData{PINFL: f.PINFL, INN: f.INN, LastName: f.LastName, FirstName: f.FirstName, MiddleName: f.MiddleName,
		BirthDate: f.BirthDate, Gender: f.Gender, DocumentType: f.DocumentType, DocumentSeries: f.DocumentSeries,
		DocumentNumber: f.DocumentNumber, DocumentIssuedBy: f.DocumentIssuedBy, DocumentIssued: f.DocumentIssued,
		DocumentExpiry: f.DocumentExpiry, Region: f.Region, District: f.District, Address: f.Address, Email: f.Email, Phone: f.Phone}
}

func (c clientData) domain(today time.Time) (domain.ClientData, error) {
	return domain.ParseClientData(domain.ClientDataInput{PINFL: c.PINFL, INN: c.INN, LastName: c.LastName, FirstName: c.FirstName,
		MiddleName: c.MiddleName, BirthDate: c.BirthDate, Gender: c.Gender, DocumentType: c.DocumentType,
		DocumentSeries: c.DocumentSeries, DocumentNumber: c.DocumentNumber, DocumentIssuedBy: c.DocumentIssuedBy,
		DocumentIssued: c.DocumentIssued, DocumentExpiry: c.DocumentExpiry, Region: c.Region, District: c.District,
		Address: c.Address, Email: c.Email, Phone: c.Phone}, today)
}

type offer struct {
	Amount      int64  `json:"amount"`
	Percent     string `json:"percent"`
	MonthPeriod int    `json:"monthPeriod"`
	BackupPhone string `json:"backupPhone,omitempty"`
}

type answer struct {
	Status string `json:"status"` // PENDING, APPROVED or DECLINED
	Reason string `json:"reason,omitempty"`
}

// applicant is the body of pre-scoring and of opening the account: who applies.
type applicant struct {
	ApplicationID uuid.UUID  `json:"applicationId"`
	Phone         string     `json:"phone"`
	ClientData    clientData `json:"clientData"`
}

func wireApplicant(id uuid.UUID, phone domain.Phone, c domain.ClientData) applicant {
	return applicant{ApplicationID: id, Phone: phone.String(), ClientData: wireClient(c)}
}

type preScoreAnswer struct {
	answer
	AmountLimit int64  `json:"amountLimit,omitempty"`
	Percent     string `json:"percent,omitempty"`
	MonthPeriod int    `json:"monthPeriod,omitempty"`
}

type postScoreRequest struct {
	ApplicationID uuid.UUID  `json:"applicationId"`
	Offer         offer      `json:"offer"`
	ClientData    clientData `json:"clientData"`
}

type postScoreAnswer struct {
	Approved          bool   `json:"approved"`
	Reason            string `json:"reason,omitempty"`
	PhoneCallRequired bool   `json:"phoneCallRequired,omitempty"`
	CallCentrePhone   string `json:"callCentrePhone,omitempty"`
}

type loanApplicationRequest struct {
	ApplicationID uuid.UUID `json:"applicationId"`
	AccountNumber string    `json:"accountNumber"`
	Offer         offer     `json:"offer"`
}

type issueLoanRequest struct {
	ApplicationID      uuid.UUID `json:"applicationId"`
	AccountNumber      string    `json:"accountNumber"`
	LoanApplicationRef string    `json:"loanApplicationRef"`
	Amount             int64     `json:"amount,omitempty"`
	At                 time.Time `json:"at,omitzero"`
}

type contractRequest struct {
	ApplicationID uuid.UUID `json:"applicationId"`
	AccountNumber string    `json:"accountNumber"`
}

type refBody struct {
	Ref string `json:"ref"`
}

type accountBody struct {
	AccountNumber string `json:"accountNumber"`
}

type contractBody struct {
	ContractNumber string `json:"contractNumber"`
}

type creditRequest struct {
	PAN        string `json:"pan,omitempty"`
	CardToken  string `json:"cardToken,omitempty"`
	Network    string `json:"network"`
	Amount     int64  `json:"amount"`
	CardHolder string `json:"cardHolder"`
}

type tokenBody struct {
	Token string `json:"token"`
}

type creditOrder struct {
	Token         string    `json:"token"`
	Amount        int64     `json:"amount"`
	Network       string    `json:"network,omitempty"`
	At            time.Time `json:"at,omitzero"`
	AccountNumber string    `json:"accountNumber,omitempty"`
}

type creditResult struct {
	Credited bool   `json:"credited"`
	Reason   string `json:"reason,omitempty"`
}

type debitQuery struct {
	DebitID string    `json:"debitId"`
	Network string    `json:"network"`
	Amount  int64     `json:"amount"`
	At      time.Time `json:"at,omitzero"`
}

// statementQuery asks for a network's lines of a business day (YYYY-MM-DD, Asia/Tashkent).
type statementQuery struct {
	Network string `json:"network"`
	Day     string `json:"day"`
}

type statementLine struct {
	ID     string    `json:"id"`
	Kind   string    `json:"kind"` // CREDIT or DEBIT
	Amount int64     `json:"amount"`
	At     time.Time `json:"at"`
	Status string    `json:"status"` // DONE, FAILED or REVERSED
}

type statement struct {
	Lines []statementLine `json:"lines"`
}

type debit struct {
	DebitID   string `json:"debitId"`
	Network   string `json:"network"`
	Amount    int64  `json:"amount"`
	Succeeded bool   `json:"succeeded"`
}

type cardQuery struct {
	PAN     string `json:"pan"`
	Expiry  string `json:"expiry"`
	Network string `json:"network"`
	Phone   string `json:"phone"`
}

type cardState struct {
	Token  string `json:"token"`
	Status string `json:"status"`
}

type smsBody struct {
	Phone string `json:"phone"`
	Text  string `json:"text"`
	// Card is the masked number of the card the code is for; an SMS gateway may ignore it.
	Card string `json:"card,omitempty"`
}

type cardOrder struct {
	OrderID    uuid.UUID  `json:"orderId"`
	Phone      string     `json:"phone"`
	ClientData clientData `json:"clientData"`
}

type issuedCard struct {
	answer
	Network   string `json:"network,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	Expiry    string `json:"expiry,omitempty"`
	Token     string `json:"token,omitempty"`
}

// balancesQuery asks for core banking's closing balances of a business day (YYYY-MM-DD).
type balancesQuery struct {
	Day string `json:"day"`
}

type balance struct {
	Account string `json:"account"`
	Kind    string `json:"kind"`
	Balance int64  `json:"balance"`
}

type balances struct {
	Balances []balance `json:"balances"`
}

type glLine struct {
	GL      string `json:"gl"`
	Debits  int64  `json:"debits"`
	Credits int64  `json:"credits"`
}

// glAck is the general ledger's acknowledgement of a journal. debits and credits are required:
// an answer without them is not the protocol's.
type glAck struct {
	Ref     string `json:"ref"`
	Debits  *int64 `json:"debits"`
	Credits *int64 `json:"credits"`
}

type glJournal struct {
	Day      string   `json:"day"`
	Sequence int      `json:"sequence"`
	Lines    []glLine `json:"lines"`
}
