package http

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/tidwall/sjson"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// EventBody renders an event as its webhook body (DESIGN.md §11), from the document's
// WebhookEvent types. The store calls it when it records the event, so every delivery attempt
// sends the same bytes.
func EventBody(e domain.Event) ([]byte, error) {
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
			Status: api.ApplicationStatusChangedEventDataStatus(status), LastTask: lastTask(d.Task)})
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
			PaymentType: api.RepaymentStatusChangedEventDataPaymentType(d.PaymentType.String()), LoanClosed: d.LoanClosed}
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

func (s *Server) listEvents(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.ListEventsParams](raw, &fs)
	q := application.ListEvents{PartnerID: p.ID, Limit: application.MaxEventsListed}
	if in.AfterSequence != nil {
		q.AfterSequence = *in.AfterSequence
	}
	if in.Limit != nil {
		q.Limit = *in.Limit
	}
	if in.Types != nil {
		for i, t := range *in.Types {
			typ, err := domain.ParseEventType(string(t))
			fs.Check(fmt.Sprintf("params.types[%d]", i), err)
			q.Types = append(q.Types, typ)
		}
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	page, err := s.d.App.ListEvents.Handle(ctx, q)
	if err != nil {
		return nil, err
	}
	events := make([]json.RawMessage, len(page.Events))
	for i, e := range page.Events {
		events[i] = e.Body
	}
	return struct {
		Events       []json.RawMessage `json:"events"`
		NextSequence int64             `json:"nextSequence"`
	}{events, page.NextSequence}, nil
}

func (s *Server) sendTestEvent(w write) (application.Answer, error) {
	var fs domain.Fieldset
	decodeParams[struct{}](w.params(), &fs)
	if err := fs.Err(); err != nil {
		return application.Answer{}, err
	}
	return s.d.App.SendTestEvent.Handle(w.ctx(), requestOf(w, func(id uuid.UUID) any {
		return api.SendTestEventResult{EventId: id.String()}
	}), application.SendTestEvent{PartnerID: w.partner.ID}), nil
}

// lastTask is a stage as the wire shows it.
func lastTask(t domain.Task) api.LastTask {
	task := api.LastTask{Name: api.TaskName(t.Name.String()), Status: api.TaskStatus(t.Status.String())}
	if code, ok := stageErrorCodes[t.Error]; ok {
		msg := t.Message
		task.ErrorCode, task.ErrorMessage = &code, &msg
	}
	return task
}
