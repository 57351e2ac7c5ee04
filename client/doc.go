// Package client is tiyin's Go client: a partner's backend calls the partner API through it
// instead of writing the calls by hand.
//
//	c, err := client.New("https://tiyin.bank.uz", os.Getenv("TIYIN_KEY"))
//	reg, err := c.Applications.Register(ctx, client.RegisterApplicationParams{…})
//	app, err := c.Applications.Info(ctx, reg.ApplicationID)
//	if app.Status == client.ApplicationPending { … app.PreScoreResult.Percent … }
//
// The calls are grouped by resource, one field of Client per tag of the API document
// (adapters/http/openapi.yaml, served at /openapi.yaml): Applications, Transfers, Loans,
// Repayments, Cards, CardOrders, Events and Sandbox. Each takes a context and its params and
// returns its typed result; the envelope ({"id", "params"} in, {"id", "result", "error"} out)
// and the bearer key are the Client's business.
//
// # Errors
//
// When tiyin refuses a call, the error is an *Error with the code, message, HTTP status and
// request id (docs/integration.md, "Error codes"). Code, the type of the codes, is itself an
// error, as syscall.Errno is, so errors.Is matches a refusal to its code through any wrapping:
//
//	if errors.Is(err, client.CodeRepaymentExpired) { … check again … }
//	var e *client.Error
//	if errors.As(err, &e) { log.Print(e.Code, e.RequestID) }
//
// Any other error means no answer from tiyin came: the call's outcome is unknown.
//
// # Repeats and idempotency
//
// Every call is sent with an envelope id, tiyin's idempotency key. When a call gets no answer,
// or tiyin answers code 7, 9 or 10, the Client sends it again with the same id (WithRetry sets
// how often): tiyin answers a repeat with the first answer, or finishes what the first
// started, so money moves once. To repeat a call later, after the process stopped, choose its
// id yourself and keep it: WithEnvelopeID.
//
// # Values
//
// Enumerations are string types with one constant per value, named by one scheme: the type's
// name without a last Status, Type, Name or Action, then the value in CamelCase
// (DocumentPassport, PaymentTerm, ApplicationInProgress, CardBlocked). Dates are Date, a
// calendar date; date-times are time.Time; ids are UUID (github.com/google/uuid's: uuid.New()
// makes one); money is int64 tiyin; a percent is Percent, exact to its two decimals.
//
// Webhooks: VerifyWebhook checks a delivery's signature; its body decodes into an Event.
//
// The package is generated in part: internal/api is oapi-codegen's output from the API
// document (`make generate`), and this package's tests fail when the document has an
// operation, a field or a value the hand-written face lacks. tiyin demo and the end-to-end
// tests drive tiyin through it.
package client
