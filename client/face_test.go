package client

// These tests hold the hand-written face to the generated layer, and so to the API document:
// after `make generate`, an operation, a field or an enumeration value the face lacks fails
// here, by name.

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/tiyin/tiyin/client/internal/api"
)

// recorder answers every call with an empty result and keeps the last request.
type recorder struct {
	mu                 sync.Mutex
	method, path, body string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.method, r.path, r.body = req.Method, req.URL.Path, string(b)
	r.mu.Unlock()
	_, _ = io.WriteString(w, `{"id":null,"result":{},"error":null}`)
}

func (r *recorder) last() (method, path, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.method, r.path, r.body
}

// faceCalls are the face's calls, one per operation of the generated layer (its name), each
// with every param set so that every field is sent.
func faceCalls(c *Client) map[string]func(context.Context) error {
	id := uuid.MustParse("01a2c1a4-0000-7000-8000-000000000001")
	person := ClientData{PINFL: "31234567890123", INN: "123456789", LastName: "Karimov", FirstName: "Aziz", MiddleName: "Anvarovich",
		BirthDate: NewDate(1990, time.May, 17), Gender: GenderMale, Email: "aziz@example.uz", Phone: "998901234567",
		Document: Document{Type: DocumentPassport, Series: "AA", Number: "1234567", IssuedBy: "Toshkent IIB",
			IssuedDate: NewDate(2020, time.January, 10), ExpiryDate: NewDate(2030, time.January, 9)},
		Address: Address{Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1"}}
	errOf := func(_ any, err error) error { return err }
	return map[string]func(context.Context) error{
		"RegisterApplication": func(ctx context.Context) error {
			return errOf(c.Applications.Register(ctx, RegisterApplicationParams{ExternalID: id, AgreementAccepted: true, PhoneNumber: "998901234567", ClientData: person}))
		},
		"CancelApplication": func(ctx context.Context) error {
			return errOf(c.Applications.Cancel(ctx, id, InitiatorClient))
		},
		"VerifyApplication": func(ctx context.Context) error {
			return errOf(c.Applications.Verify(ctx, VerifyApplicationParams{ApplicationID: id, Amount: 1, Percent: MustParsePercent("28.05"), MonthPeriod: 12, BackupPhone: "998911112233"}))
		},
		"IssueApplication": func(ctx context.Context) error { return errOf(c.Applications.Issue(ctx, id, person)) },
		"GetApplication":   func(ctx context.Context) error { return errOf(c.Applications.Info(ctx, id)) },
		"FindApplication":  func(ctx context.Context) error { return errOf(c.Applications.Find(ctx, id)) },
		"CreateTransfer": func(ctx context.Context) error {
			return errOf(c.Transfers.Create(ctx, CreateTransferParams{ExternalID: id, ApplicationID: id, PAN: "8600123456789012", CardID: id,
				ReceiverCardType: ProcessingUzcard, CardHolderName: "AZIZ KARIMOV", Amount: 1}))
		},
		"ConfirmTransfer": func(ctx context.Context) error { return errOf(c.Transfers.Confirm(ctx, id, id)) },
		"CheckTransfer":   func(ctx context.Context) error { return errOf(c.Transfers.Status(ctx, id, id)) },
		"GetLoan":         func(ctx context.Context) error { return errOf(c.Loans.Info(ctx, id)) },
		"GetSchedule":     func(ctx context.Context) error { return errOf(c.Loans.Schedule(ctx, "4829105736")) },
		"ListPayments":    func(ctx context.Context) error { return errOf(c.Loans.Payments(ctx, "4829105736")) },
		"CheckRepayment":  func(ctx context.Context) error { return errOf(c.Repayments.Check(ctx, "4829105736")) },
		"PayRepayment": func(ctx context.Context) error {
			return errOf(c.Repayments.Pay(ctx, PayRepaymentParams{LoanID: "4829105736", RequestID: id, PaymentType: PaymentTerm, DebitID: "DBT-1", Amount: 1, ProcessingType: ProcessingHumo}))
		},
		"GetRepayment": func(ctx context.Context) error {
			return errOf(c.Repayments.Status(ctx, GetRepaymentParams{RequestID: id, ExternalID: id}))
		},
		"OrderCard": func(ctx context.Context) error {
			return errOf(c.CardOrders.Create(ctx, OrderCardParams{ExternalID: "ORD-1", PhoneNumber: "998901234567", ClientData: person,
				PrivacyPolicyAccepted: true, TermsAndConditionsAccepted: true}))
		},
		"GetCardOrder":  func(ctx context.Context) error { return errOf(c.CardOrders.Info(ctx, id)) },
		"GetCardStatus": func(ctx context.Context) error { return errOf(c.Cards.Status(ctx, id)) },
		"ChangeCardStatus": func(ctx context.Context) error {
			return errOf(c.Cards.ChangeStatus(ctx, ChangeCardStatusParams{CardID: id, Status: CardBlocked, Reason: "lost"}))
		},
		"AttachCard": func(ctx context.Context) error {
			return errOf(c.Cards.Attach(ctx, AttachCardParams{PAN: "8600123456789012", Expiry: "2911", ProcessingType: ProcessingUzcard, PhoneNumber: "998901234567"}))
		},
		"ConfirmCard": func(ctx context.Context) error { return errOf(c.Cards.Confirm(ctx, id, "231337")) },
		"ListEvents": func(ctx context.Context) error {
			return errOf(c.Events.List(ctx, ListEventsParams{AfterSequence: 1, Limit: 100, Types: []EventType{EventTest}}))
		},
		"AdvanceClock":         func(ctx context.Context) error { return errOf(c.Sandbox.AdvanceClock(ctx, time.Minute)) },
		"SmsOutbox":            func(ctx context.Context) error { return errOf(c.Sandbox.Outbox(ctx, "998901234567")) },
		"CompleteVerification": func(ctx context.Context) error { return errOf(c.Sandbox.CompleteVerification(ctx, id)) },
		"SendTestEvent":        func(ctx context.Context) error { return errOf(c.Sandbox.SendTestEvent(ctx)) },
		"ResetSandbox":         func(ctx context.Context) error { return errOf(c.Sandbox.Reset(ctx)) },
	}
}

// Every operation of the document has a face call, which sends the operation's method and
// path with a body the generated request type reads strictly (no field unknown to the
// document, each of the document's type).
func TestTheFaceCallsEveryOperation(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "k", WithRetry(Retry{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	calls := faceCalls(c)
	g := reflect.ValueOf(c.api)
	var ops []string
	for i := range g.NumMethod() {
		if op, ok := strings.CutSuffix(g.Type().Method(i).Name, "WithBody"); ok {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		t.Fatal("the generated client has no operations")
	}
	ctx := context.Background()
	for _, op := range ops {
		call := calls[op]
		if call == nil {
			t.Errorf("operation %s has no method in the face", op)
			continue
		}
		out := g.MethodByName(op + "WithBody").Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf("application/json"),
			reflect.ValueOf(bytes.NewReader([]byte("{}")))})
		if err, _ := out[1].Interface().(error); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		_ = out[0].Interface().(*http.Response).Body.Close()
		wantMethod, wantPath, _ := rec.last()
		if err := call(ctx); err != nil {
			t.Errorf("%s: %v", op, err)
			continue
		}
		method, path, body := rec.last()
		if method != wantMethod || path != wantPath {
			t.Errorf("%s: the face sent %s %s, the document says %s %s", op, method, path, wantMethod, wantPath)
		}
		req := reflect.New(g.MethodByName(op).Type().In(1))
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(req.Interface()); err != nil {
			t.Errorf("%s: the document's request type does not read the face's body %s: %v", op, body, err)
		}
	}
	for op := range calls {
		if !slices.Contains(ops, op) {
			t.Errorf("the face calls %s, which the document does not have", op)
		}
	}
}

// faceTypes pairs each object type of the generated layer (by name) with the face's type for
// it. Every object type generated from the document must be here.
var faceTypes = map[string][2]reflect.Type{
	"Address":                           pair[api.Address, Address](),
	"ClientData":                        pair[api.ClientData, ClientData](),
	"Document":                          pair[api.Document, Document](),
	"RegisterApplicationParams":         pair[api.RegisterApplicationParams, RegisterApplicationParams](),
	"RegisterApplicationResult":         pair[api.RegisterApplicationResult, RegisterApplicationResult](),
	"CancelApplicationParams":           pair[api.CancelApplicationParams, cancelParams](),
	"CancelApplicationResult":           pair[api.CancelApplicationResult, CancelApplicationResult](),
	"VerifyApplicationParams":           pair[api.VerifyApplicationParams, VerifyApplicationParams](),
	"VerifyApplicationResult":           pair[api.VerifyApplicationResult, VerifyApplicationResult](),
	"IssueApplicationParams":            pair[api.IssueApplicationParams, issueParams](),
	"IssueApplicationResult":            pair[api.IssueApplicationResult, IssueApplicationResult](),
	"GetApplicationParams":              pair[api.GetApplicationParams, applicationIDParams](),
	"GetApplicationResult":              pair[api.GetApplicationResult, Application](),
	"FindApplicationParams":             pair[api.FindApplicationParams, findParams](),
	"LastTask":                          pair[api.LastTask, LastTask](),
	"PreScoreResult":                    pair[api.PreScoreResult, PreScoreResult](),
	"CreateTransferParams":              pair[api.CreateTransferParams, CreateTransferParams](),
	"CreateTransferResult":              pair[api.CreateTransferResult, CreateTransferResult](),
	"TransferRefParams":                 pair[api.TransferRefParams, transferRef](),
	"ConfirmTransferResult":             pair[api.ConfirmTransferResult, ConfirmTransferResult](),
	"CheckTransferResult":               pair[api.CheckTransferResult, Transfer](),
	"GetLoanResult":                     pair[api.GetLoanResult, Loan](),
	"LoanIdParams":                      pair[api.LoanIdParams, loanIDParams](),
	"GetScheduleResult":                 pair[api.GetScheduleResult, scheduleResult](),
	"ScheduleItem":                      pair[api.ScheduleItem, ScheduleItem](),
	"ListPaymentsResult":                pair[api.ListPaymentsResult, paymentsResult](),
	"PaymentItem":                       pair[api.PaymentItem, Payment](),
	"CheckRepaymentResult":              pair[api.CheckRepaymentResult, CheckRepaymentResult](),
	"PayRepaymentParams":                pair[api.PayRepaymentParams, PayRepaymentParams](),
	"PayRepaymentResult":                pair[api.PayRepaymentResult, PayRepaymentResult](),
	"GetRepaymentParams":                pair[api.GetRepaymentParams, GetRepaymentParams](),
	"GetRepaymentResult":                pair[api.GetRepaymentResult, Repayment](),
	"OrderCardParams":                   pair[api.OrderCardParams, OrderCardParams](),
	"OrderCardResult":                   pair[api.OrderCardResult, OrderCardResult](),
	"OrderIdParams":                     pair[api.OrderIdParams, orderIDParams](),
	"GetCardOrderResult":                pair[api.GetCardOrderResult, CardOrder](),
	"CardOrder":                         pair[api.CardOrder, OrderState](),
	"CardInfo":                          pair[api.CardInfo, CardInfo](),
	"CardIdParams":                      pair[api.CardIdParams, cardIDParams](),
	"CardStatusResult":                  pair[api.CardStatusResult, Card](),
	"ChangeCardStatusParams":            pair[api.ChangeCardStatusParams, ChangeCardStatusParams](),
	"AttachCardParams":                  pair[api.AttachCardParams, AttachCardParams](),
	"AttachCardResult":                  pair[api.AttachCardResult, AttachCardResult](),
	"ConfirmCardParams":                 pair[api.ConfirmCardParams, confirmCardParams](),
	"MessageResult":                     pair[api.MessageResult, ConfirmCardResult](),
	"AdvanceClockParams":                pair[api.AdvanceClockParams, advanceClockParams](),
	"AdvanceClockResult":                pair[api.AdvanceClockResult, clockResult](),
	"SMSOutboxParams":                   pair[api.SMSOutboxParams, outboxParams](),
	"SMSOutboxResult":                   pair[api.SMSOutboxResult, outboxResult](),
	"SMSMessage":                        pair[api.SMSMessage, SMS](),
	"CompleteVerificationParams":        pair[api.CompleteVerificationParams, applicationIDParams](),
	"CompleteVerificationResult":        pair[api.CompleteVerificationResult, CompleteVerificationResult](),
	"SendTestEventResult":               pair[api.SendTestEventResult, SendTestEventResult](),
	"ResetSandboxResult":                pair[api.ResetSandboxResult, clockResult](),
	"ListEventsParams":                  pair[api.ListEventsParams, ListEventsParams](),
	"ListEventsResult":                  pair[api.ListEventsResult, EventPage](),
	"WebhookEvent":                      pair[api.WebhookEvent, Event](),
	"ApplicationStatusChangedEventData": pair[api.ApplicationStatusChangedEventData, ApplicationStatusChanged](),
	"LoanContractAssignedEventData":     pair[api.LoanContractAssignedEventData, LoanContractAssigned](),
	"TransferStatusChangedEventData":    pair[api.TransferStatusChangedEventData, TransferStatusChanged](),
	"RepaymentStatusChangedEventData":   pair[api.RepaymentStatusChangedEventData, RepaymentStatusChanged](),
	"CardOrderStatusChangedEventData":   pair[api.CardOrderStatusChangedEventData, CardOrderStatusChanged](),
	"CardAttachedEventData":             pair[api.CardAttachedEventData, CardAttached](),
	"LoanChangedEventData":              pair[api.LoanChangedEventData, LoanChanged](),
	"ReminderSentEventData":             pair[api.ReminderSentEventData, ReminderSent](),
	"TestEventData":                     pair[api.TestEventData, TestEvent](),
}

// notFaced are the generated object types the face has no type for, and why.
var notFaced = map[string]string{
	"Error":               "the envelope's error, read by Client.do into *Error",
	"WebhookEvent_Data":   "an event's data, one of the *EventData types: Event.Data, read by Event.Decode",
	"Client":              "the generated client itself",
	"ClientWithResponses": "the generated client itself",
}

// asUUID are the fields the document types as a plain string that tiyin always fills with a
// UUID (its own ids), which the face reads as UUID.
var asUUID = map[string]bool{
	"GetApplicationResult.externalId": true, "PreScoreResult.externalId": true,
	"CreateTransferResult.transactionId": true, "ConfirmTransferResult.externalId": true,
	"CheckTransferResult.externalId": true, "CheckRepaymentResult.requestId": true,
	"PayRepaymentParams.requestId": true, "PayRepaymentResult.requestId": true,
	"GetRepaymentResult.requestId": true, "GetRepaymentResult.externalId": true, "GetRepaymentResult.transactionId": true,
	"OrderCardResult.orderId": true, "CardInfo.id": true, "CardStatusResult.cardId": true, "AttachCardResult.cardId": true,
}

func pair[A, F any]() [2]reflect.Type {
	return [2]reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[F]()}
}

// generated parses the generated layer's source.
func generated(t *testing.T) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "internal/api/api.gen.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Every object of the document has a face type with the same fields (by their JSON names),
// each of a type that reads the document's: a field the document gains and the face lacks
// fails here.
func TestTheFaceTypesHoldEveryField(t *testing.T) {
	t.Parallel()
	for _, d := range generated(t).Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			name := ts.Name.Name
			// Envelopes (…Request, …Response), the generated client's answers (…Reply) and their
			// headers (…Reply200Headers) are the face's own business.
			if _, isStruct := ts.Type.(*ast.StructType); !isStruct || strings.HasSuffix(name, "Request") ||
				strings.HasSuffix(name, "Response") || strings.Contains(name, "Reply") {
				continue
			}
			if _, ok := faceTypes[name]; !ok && notFaced[name] == "" {
				t.Errorf("the document's %s has no face type: add one and pair it in faceTypes", name)
			}
		}
	}
	for name, p := range faceTypes {
		if p[0].Name() != name {
			t.Errorf("faceTypes[%s] pairs api.%s", name, p[0].Name())
		}
		compareFields(t, name, p[0], p[1])
	}
}

func compareFields(t *testing.T, where string, gen, face reflect.Type) {
	t.Helper()
	gf, ff := jsonFields(gen), jsonFields(face)
	for name, g := range gf {
		f, ok := ff[name]
		if !ok {
			t.Errorf("%s.%s: the face's %s lacks it", where, name, face)
			continue
		}
		at := gen.Name() + "." + name
		gt, ft := elem(g), elem(f)
		gk, fk := kind(gt), kind(ft)
		switch {
		case gk == "object" && fk == "object":
			compareFields(t, where+"."+name, gt, ft)
		case gk == "enum":
			if want := enumOf[gt.Name()]; ft.Name() != want {
				t.Errorf("%s: the face's type is %s, want %s", at, ft, want)
			}
		case gk == fk, gk == "text" && fk == "uuid" && asUUID[at]:
		default:
			t.Errorf("%s: the document's %s (%s) read as the face's %s (%s)", where+"."+name, gt, gk, ft, fk)
		}
		if isList(g) != isList(f) {
			t.Errorf("%s: a list on one side only", where+"."+name)
		}
	}
	for name := range ff {
		if _, ok := gf[name]; !ok {
			t.Errorf("%s.%s: the face's %s has it, the document does not", where, name, face)
		}
	}
}

// jsonFields are a struct's fields by JSON name.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// elem is what a field's pointers and lists hold.
func elem(t reflect.Type) reflect.Type {
	for (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) && t != reflect.TypeFor[json.RawMessage]() {
		t = t.Elem()
	}
	return t
}

// isList reports whether a field holds a list (behind a pointer or not).
func isList(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Slice && t != reflect.TypeFor[json.RawMessage]()
}

// kind is what a field holds on the wire, as the two sides' types say it.
func kind(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[time.Time]():
		return "time"
	case reflect.TypeFor[uuid.UUID]():
		return "uuid"
	case reflect.TypeFor[openapi_types.Date](), reflect.TypeFor[Date]():
		return "date"
	case reflect.TypeFor[Percent]():
		return "number"
	case reflect.TypeFor[json.RawMessage](), reflect.TypeFor[api.WebhookEvent_Data](), reflect.TypeFor[map[string]any]():
		return "raw"
	case reflect.TypeFor[openapi_types.Email]():
		return "text"
	}
	if _, ok := enumOf[t.Name()]; ok && t.PkgPath() == reflect.TypeFor[api.Address]().PkgPath() {
		return "enum"
	}
	switch t.Kind() {
	case reflect.Struct:
		return "object"
	case reflect.String:
		return "text"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "bool"
	}
	return t.String()
}

// enumOf is the face's type for each enumeration of the document.
var enumOf = map[string]string{
	"ApplicationStatus":                       "ApplicationStatus",
	"ApplicationStatusChangedEventDataStatus": "ApplicationStatus",
	"TaskName":                                   "TaskName",
	"TaskStatus":                                 "TaskStatus",
	"ClientDataGender":                           "Gender",
	"DocumentType":                               "DocumentType",
	"CancelApplicationParamsInitiator":           "Initiator",
	"AttachCardParamsProcessingType":             "ProcessingType",
	"CardAttachedEventDataProcessingType":        "ProcessingType",
	"CreateTransferParamsReceiverCardType":       "ProcessingType",
	"PayRepaymentParamsProcessingType":           "ProcessingType",
	"TransferStatus":                             "TransferStatus",
	"GetLoanResultStatus":                        "LoanStatus",
	"LoanChangedEventDataLoanStatus":             "LoanStatus",
	"PayRepaymentParamsPaymentType":              "PaymentType",
	"RepaymentStatusChangedEventDataPaymentType": "PaymentType",
	"PaymentChannel":                             "Channel",
	"RepaymentStatus":                            "RepaymentStatus",
	"CardStatus":                                 "CardStatus",
	"CardOrderStatus":                            "CardOrderStatus",
	"CardOrderStatusChangedEventDataStatus":      "CardOrderStatus",
	"EventType":                                  "EventType",
	"LoanChangedEventDataAction":                 "LoanChangeAction",
	"ReminderSentEventDataKind":                  "ReminderKind",
}

// stringConsts are a file's constants of a named string type: type → value → constant.
func stringConsts(t *testing.T, f *ast.File) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			typ, ok := vs.Type.(*ast.Ident)
			if !ok || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, _ := strconv.Unquote(lit.Value)
			if out[typ.Name] == nil {
				out[typ.Name] = map[string]string{}
			}
			out[typ.Name][v] = vs.Names[0].Name
		}
	}
	return out
}

// Every enumeration of the document is a face type with a constant for each of its values,
// and no other, each named by the one scheme: the type's name without a last Status, Type,
// Name or Action, then the value in CamelCase.
func TestTheFaceEnumerationsAreTheDocuments(t *testing.T) {
	t.Parallel()
	gen := stringConsts(t, generated(t))
	src, err := parser.ParseFile(token.NewFileSet(), "enums.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	face := stringConsts(t, src)
	want := map[string]map[string]bool{}
	for g, values := range gen {
		f, ok := enumOf[g]
		if !ok {
			t.Errorf("the document's enumeration %s has no face type: add it to enums.go and enumOf", g)
			continue
		}
		if want[f] == nil {
			want[f] = map[string]bool{}
		}
		for v := range values {
			want[f][v] = true
		}
	}
	for f, values := range want {
		for v := range values {
			if face[f][v] == "" {
				t.Errorf("%s lacks a constant for %q", f, v)
			}
		}
		for v, name := range face[f] {
			if !values[v] {
				t.Errorf("%s = %q is not a value of the document's", name, v)
			}
		}
	}
	for typ, values := range face {
		if want[typ] == nil {
			t.Errorf("enums.go's %s is no enumeration of the document's", typ)
		}
		prefix := typ
		for _, last := range []string{"Status", "Type", "Name", "Action"} {
			if p, ok := strings.CutSuffix(typ, last); ok && p != "" {
				prefix = p
				break
			}
		}
		for v, name := range values {
			if want := prefix + camel(v); name != want {
				t.Errorf("%s %q is %s, want %s", typ, v, name, want)
			}
		}
	}
}

// camel writes an API value in CamelCase, keeping initialisms whole: ID_CARD is IDCard.
func camel(v string) string {
	var b strings.Builder
	for _, w := range strings.Split(v, "_") {
		switch w {
		case "ID", "OTP":
			b.WriteString(w)
		default:
			b.WriteString(w[:1] + strings.ToLower(w[1:]))
		}
	}
	return b.String()
}
