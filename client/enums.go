package client

// The API's enumerations. Each is a string type whose value is the API's text; its constants
// are named by one scheme: the type's name without a last word Status, Type, Name or Action,
// then the value in CamelCase (DocumentType PASSPORT is DocumentPassport, PaymentType TERM is
// PaymentTerm, ApplicationStatus IN_PROGRESS is ApplicationInProgress, TaskName PRE_SCORING
// is TaskPreScoring, TaskStatus COMPLETED is TaskCompleted). A value tiyin adds later reads
// into the type as its text, so compare with the constants and keep a default branch.

// Gender is a client's gender in ClientData.
type Gender string

// The genders.
const (
	GenderMale   Gender = "MALE"
	GenderFemale Gender = "FEMALE"
)

// DocumentType is the kind of a client's identity document.
type DocumentType string

// The identity documents.
const (
	DocumentPassport DocumentType = "PASSPORT"
	DocumentIDCard   DocumentType = "ID_CARD"
)

// ApplicationStatus is where an application is (docs/integration.md, "Application statuses
// and stages").
type ApplicationStatus string

// The application statuses. ApplicationLoanIssued comes only in an
// APPLICATION_STATUS_CHANGED event, where the info call shows ApplicationCompleted.
const (
	ApplicationNew        ApplicationStatus = "NEW"
	ApplicationPending    ApplicationStatus = "PENDING"
	ApplicationInProgress ApplicationStatus = "IN_PROGRESS"
	ApplicationCompleted  ApplicationStatus = "COMPLETED"
	ApplicationRejected   ApplicationStatus = "REJECTED"
	ApplicationCanceled   ApplicationStatus = "CANCELED"
	ApplicationFailed     ApplicationStatus = "FAILED"
	ApplicationExpired    ApplicationStatus = "EXPIRED"
	ApplicationLoanIssued ApplicationStatus = "LOAN_ISSUED"
)

// TaskName is the stage of an application that last ran (LastTask.Name).
type TaskName string

// The stages.
const (
	TaskPreScoring                   TaskName = "PRE_SCORING"
	TaskPreScoringInfo               TaskName = "PRE_SCORING_INFO"
	TaskPostScoring                  TaskName = "POST_SCORING"
	TaskPostScoringInfo              TaskName = "POST_SCORING_INFO"
	TaskOTPSent                      TaskName = "OTP_SENT"
	TaskOTPConfirm                   TaskName = "OTP_CONFIRM"
	TaskClientVerification           TaskName = "CLIENT_VERIFICATION"
	TaskOpenAccount                  TaskName = "OPEN_ACCOUNT"
	TaskOpenLoanApplication          TaskName = "OPEN_LOAN_APPLICATION"
	TaskGetOpenLoanApplicationResult TaskName = "GET_OPEN_LOAN_APPLICATION_RESULT"
	TaskLoanIssuance                 TaskName = "LOAN_ISSUANCE"
	TaskGetLoanIssuanceResult        TaskName = "GET_LOAN_ISSUANCE_RESULT"
)

// TaskStatus is how the stage that last ran ended (LastTask.Status).
type TaskStatus string

// The stage outcomes.
const (
	TaskNew        TaskStatus = "NEW"
	TaskInProgress TaskStatus = "IN_PROGRESS"
	TaskPending    TaskStatus = "PENDING"
	TaskCompleted  TaskStatus = "COMPLETED"
	TaskRejected   TaskStatus = "REJECTED"
	TaskFailed     TaskStatus = "FAILED"
	TaskExpired    TaskStatus = "EXPIRED"
)

// Initiator is who asks to cancel an application: the partner, or the client through the
// partner (rule 3.5.1: the client only while choosing the offer).
type Initiator string

// The initiators of a cancel.
const (
	InitiatorPartner Initiator = "PARTNER"
	InitiatorClient  Initiator = "CLIENT"
)

// ProcessingType is a card's processing network: a transfer's receiverCardType, a pay's or an
// attach's processingType.
type ProcessingType string

// The processing networks.
const (
	ProcessingUzcard ProcessingType = "UZCARD"
	ProcessingHumo   ProcessingType = "HUMO"
)

// TransferStatus is where a transfer to a card is.
type TransferStatus string

// The transfer statuses.
const (
	TransferNew        TransferStatus = "NEW"
	TransferProcessing TransferStatus = "PROCESSING"
	TransferSuccess    TransferStatus = "SUCCESS"
	TransferFailed     TransferStatus = "FAILED"
	TransferExpired    TransferStatus = "EXPIRED"
)

// LoanStatus is where an issued loan is.
type LoanStatus string

// The loan statuses: active until paid off (closed) or written off by the bank; a written-off
// loan can still be paid, and paying all of it closes it.
const (
	LoanActive     LoanStatus = "ACTIVE"
	LoanClosed     LoanStatus = "CLOSED"
	LoanWrittenOff LoanStatus = "WRITTEN_OFF"
)

// PaymentType is how a repayment lays out what is left: TERM keeps the instalment and ends the
// loan earlier, EARLY keeps the end date and lowers the instalments.
type PaymentType string

// The payment types.
const (
	PaymentTerm  PaymentType = "TERM"
	PaymentEarly PaymentType = "EARLY"
)

// Channel is how a repayment's money came: a card debit through the pay call, or a payment the
// bank's operators posted.
type Channel string

// The payment channels.
const (
	ChannelCard         Channel = "CARD"
	ChannelCashDesk     Channel = "CASH_DESK"
	ChannelBankTransfer Channel = "BANK_TRANSFER"
)

// RepaymentStatus is where a repayment request (from check to pay) is.
type RepaymentStatus string

// The repayment statuses.
const (
	RepaymentNew        RepaymentStatus = "NEW"
	RepaymentProcessing RepaymentStatus = "PROCESSING"
	RepaymentSuccess    RepaymentStatus = "SUCCESS"
	RepaymentFailed     RepaymentStatus = "FAILED"
	RepaymentExpired    RepaymentStatus = "EXPIRED"
)

// CardStatus is a card's status.
type CardStatus string

// The card statuses.
const (
	CardActive     CardStatus = "ACTIVE"
	CardBlocked    CardStatus = "BLOCKED"
	CardUnverified CardStatus = "UNVERIFIED"
	CardClosed     CardStatus = "CLOSED"
	CardDeleted    CardStatus = "DELETED"
)

// CardOrderStatus is where an order of a card is.
type CardOrderStatus string

// The card order statuses.
const (
	CardOrderNew        CardOrderStatus = "NEW"
	CardOrderPending    CardOrderStatus = "PENDING"
	CardOrderInProgress CardOrderStatus = "IN_PROGRESS"
	CardOrderCompleted  CardOrderStatus = "COMPLETED"
	CardOrderCanceled   CardOrderStatus = "CANCELED"
)

// EventType is the kind of an event (Event.Type), each with its data type.
type EventType string

// The event types.
const (
	EventApplicationStatusChanged EventType = "APPLICATION_STATUS_CHANGED" // ApplicationStatusChanged
	EventLoanContractAssigned     EventType = "LOAN_CONTRACT_ASSIGNED"     // LoanContractAssigned
	EventTransferStatusChanged    EventType = "TRANSFER_STATUS_CHANGED"    // TransferStatusChanged
	EventRepaymentStatusChanged   EventType = "REPAYMENT_STATUS_CHANGED"   // RepaymentStatusChanged
	EventCardOrderStatusChanged   EventType = "CARD_ORDER_STATUS_CHANGED"  // CardOrderStatusChanged
	EventCardAttached             EventType = "CARD_ATTACHED"              // CardAttached
	EventLoanChanged              EventType = "LOAN_CHANGED"               // LoanChanged
	EventReminderSent             EventType = "REMINDER_SENT"              // ReminderSent
	EventTest                     EventType = "TEST"                       // TestEvent
)

// ReminderKind is when a reminder went to the borrower (a REMINDER_SENT event).
type ReminderKind string

// The reminders.
const (
	ReminderKindBeforeDue ReminderKind = "BEFORE_DUE"
	ReminderKindOverdue   ReminderKind = "OVERDUE"
)

// LoanChangeAction is what the bank's operators changed in a loan (a LOAN_CHANGED event).
type LoanChangeAction string

// The loan changes.
const (
	LoanChangeWaivePenalty   LoanChangeAction = "WAIVE_PENALTY"
	LoanChangeWaiveInterest  LoanChangeAction = "WAIVE_INTEREST"
	LoanChangeWriteOff       LoanChangeAction = "WRITE_OFF"
	LoanChangeExtendTerm     LoanChangeAction = "EXTEND_TERM"
	LoanChangePaymentHoliday LoanChangeAction = "PAYMENT_HOLIDAY"
)
