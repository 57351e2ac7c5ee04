package webhook

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/tidwall/sjson"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/domain"
)

// Body renders an event as its webhook body (DESIGN.md §11), from the document's WebhookEvent
// types. The store is handed this function and calls it when it records the event, so every
// delivery attempt, and the events list, sends the same bytes.
func Body(e domain.Event) ([]byte, error) {
	var data api.WebhookEvent_Data
	var err error
	switch d := e.Data.(type) {
	case domain.ApplicationChanged:
		status := d.Status.String()
		if d.Status == domain.StatusCompleted {
			status = "LOAN_ISSUED"
		}
		err = data.FromApplicationStatusChangedEventData(api.ApplicationStatusChangedEventData{
			ApplicationId: d.ApplicationID.String(), ExternalId: d.ExternalID.String(),
			Status: api.ApplicationStatusChangedEventDataStatus(status), LastTask: api.LastTaskOf(d.Stage)})
	case domain.LoanContractAssigned:
		err = data.FromLoanContractAssignedEventData(api.LoanContractAssignedEventData{
			ApplicationId: d.ApplicationID.String(), LoanId: d.ContractNumber})
	case domain.TransferChanged:
		ev := api.TransferStatusChangedEventData{TransactionId: d.TransactionID.String(), ExternalId: d.ExternalID.String(),
			Status: api.TransferStatus(d.Status.String()), Amount: d.Amount}
		if d.Message != "" {
			ev.Message = &d.Message
		}
		err = data.FromTransferStatusChangedEventData(ev)
	case domain.RepaymentChanged:
		ev := api.RepaymentStatusChangedEventData{RequestId: d.RequestID.String(), ApplicationId: d.ApplicationID.String(),
			Status: api.RepaymentStatus(d.Status.String()), Amount: d.Amount,
			PaymentType: api.RepaymentStatusChangedEventDataPaymentType(d.PaymentType.String()), LoanClosed: d.LoanClosed,
			Channel: api.PaymentChannel(d.Channel.String()), Recovery: d.Recovery}
		if d.ContractNumber != "" {
			ev.LoanId = &d.ContractNumber
		}
		err = data.FromRepaymentStatusChangedEventData(ev)
	case domain.CardOrderChanged:
		ev := api.CardOrderStatusChangedEventData{OrderId: d.OrderID.String(), ExternalId: d.ExternalID,
			Status: api.CardOrderStatusChangedEventDataStatus(d.Status.String())}
		if d.CardID != uuid.Nil {
			id := d.CardID.String()
			ev.CardId = &id
		}
		if d.Reason != "" {
			ev.Reason = &d.Reason
		}
		err = data.FromCardOrderStatusChangedEventData(ev)
	case domain.CardAttachment:
		err = data.FromCardAttachedEventData(api.CardAttachedEventData{CardId: d.CardID.String(),
			ProcessingType: api.CardAttachedEventDataProcessingType(d.Network.String()), MaskedPan: d.MaskedPAN})
	case domain.LoanChanged:
		ev := api.LoanChangedEventData{ApplicationId: d.ApplicationID.String(), Action: api.LoanChangedEventDataAction(d.Action),
			Amount: d.Amount, LoanStatus: api.LoanChangedEventDataLoanStatus(d.Status.String())}
		if d.ContractNumber != "" {
			ev.LoanId = &d.ContractNumber
		}
		if d.Months > 0 {
			ev.Months = &d.Months
		}
		err = data.FromLoanChangedEventData(ev)
	case domain.ReminderEvent:
		ev := api.ReminderSentEventData{ApplicationId: d.ApplicationID.String(), Kind: api.ReminderSentEventDataKind(d.Kind.String()),
			Bucket: d.Bucket, DueDate: openapi_types.Date{Time: d.Due}, Amount: d.Amount}
		if d.ContractNumber != "" {
			ev.LoanId = &d.ContractNumber
		}
		err = data.FromReminderSentEventData(ev)
	case domain.WebhookTest:
		err = data.FromTestEventData(api.TestEventData{Message: d.Message})
	default:
		return nil, fmt.Errorf("event %s: no wire form for %T", e.Type(), e.Data)
	}
	if err != nil {
		return nil, err
	}
	// sequence is the outbox's to write when it numbers the event (it finds `,"sequence":0,"type":"`,
	// the order the fields marshal in); createdAt keeps its milliseconds, always three digits.
	body, err := json.Marshal(api.WebhookEvent{Id: e.ID.String(), Type: api.EventType(e.Type().String()), Data: data})
	if err != nil {
		return nil, err
	}
	return sjson.SetBytes(body, "createdAt", e.At.In(domain.Tashkent).Format("2006-01-02T15:04:05.000Z07:00"))
}
