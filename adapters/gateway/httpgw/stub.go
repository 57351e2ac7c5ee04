package httpgw

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Stub serves the protocol in front of port implementations (the sandbox gateways): the other
// side of the adapters, for their tests and for a bank team reading the protocol live. Fault,
// when set, may make any call misbehave.
type Stub struct {
	Scoring     ports.Scoring
	CoreBanking ports.CoreBanking
	Processing  ports.Processing
	SMS         ports.SMSSender
	CardIssuer  ports.CardIssuer
	GL          ports.GeneralLedger
	// Token, when set, is the bearer token every call must carry.
	Token string
	// Fault is asked before every call; what it answers, the stub does.
	Fault func(op string) Misbehaviour

	once   sync.Once
	routes map[string]handler
}

// Misbehaviour is how the stub answers a call instead of answering it well.
type Misbehaviour int

// The misbehaviours: every way a system can fail to answer that the adapters must classify.
const (
	Behave      Misbehaviour = iota
	Unavailable              // HTTP 503
	Hang                     // no answer until the caller gives up
	Garbage                  // 200 with a body that is not JSON
	EmptyBody                // 200 with nothing
	ErrorInside              // 200 with the protocol's error of kind FAILED
	SlowDrip                 // 200, the body a byte at a time, slower than any deadline
	ResetConn                // the connection is closed without an answer
	BadRequest               // HTTP 400: a final technical refusal
)

type handler func(ctx context.Context, body json.RawMessage, key string) (any, error)

// ServeHTTP implements http.Handler.
func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.URL.Path, "/")
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	s.once.Do(func() { s.routes = s.handlers() })
	h, ok := s.routes[op]
	if !ok || r.Method != http.MethodPost {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if s.Fault != nil && s.misbehave(w, r, s.Fault(op)) {
		return
	}
	var body json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	res, err := h(r.Context(), body, r.Header.Get("Idempotency-Key"))
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		_ = json.NewEncoder(w).Encode(map[string]any{"error": errorBody{Kind: kindOf(err), Message: err.Error()}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"result": res})
}

// kindOf is the protocol's error kind of a port error.
func kindOf(err error) string {
	for kind, e := range kinds {
		if kind != "TRANSIENT" && errors.Is(err, e) {
			return kind
		}
	}
	return "TRANSIENT"
}

func (s *Stub) misbehave(w http.ResponseWriter, r *http.Request, m Misbehaviour) bool {
	if m != Behave {
		// Read the request first: only then does the server notice a caller that hangs up.
		_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, 1<<20))
	}
	switch m {
	case Behave:
		return false
	case Unavailable:
		w.WriteHeader(http.StatusServiceUnavailable)
	case BadRequest:
		w.WriteHeader(http.StatusBadRequest)
	case Hang:
		<-r.Context().Done()
	case Garbage:
		_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
	case EmptyBody:
		w.WriteHeader(http.StatusOK)
	case ErrorInside:
		_ = json.NewEncoder(w).Encode(map[string]any{"error": errorBody{Kind: "FAILED", Message: "the system is closed for the day"}})
	case SlowDrip:
		w.WriteHeader(http.StatusOK)
		for _, b := range []byte(`{"result": {"ref": "slow"}}`) {
			_, _ = w.Write([]byte{b})
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			select {
			case <-time.After(time.Second):
			case <-r.Context().Done():
				return true
			}
		}
	case ResetConn:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	}
	return true
}

// decode reads the body into T, then serves it.
func decode[T any](fn func(ctx context.Context, in T, key string) (any, error)) handler {
	return func(ctx context.Context, body json.RawMessage, key string) (any, error) {
		var in T
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, err
		}
		return fn(ctx, in, key)
	}
}

func wireAnswer(a ports.Answer) answer {
	return answer{Status: map[ports.AnswerStatus]string{ports.AnswerPending: "PENDING", ports.AnswerApproved: "APPROVED",
		ports.AnswerDeclined: "DECLINED"}[a.Status], Reason: a.Reason}
}

func (s *Stub) handlers() map[string]handler {
	phone := func(p string) domain.Phone { v, _ := domain.ParsePhone(p); return v }
	client := func(c clientData) domain.ClientData { v, _ := c.domain(time.Now()); return v }
	fromOffer := func(o offer) domain.Offer {
		pct, _ := domain.ParsePercent(o.Percent)
		amt, _ := domain.ParseAmount(o.Amount)
		return domain.Offer{Amount: amt, Percent: pct, MonthPeriod: o.MonthPeriod, BackupPhone: phone(o.BackupPhone)}
	}
	network := func(n string) domain.Network { v, _ := domain.ParseNetwork(n); return v }
	pan := func(p string) domain.PAN { v, _ := domain.ParsePAN(p); return v }
	pre := func(in applicant, key string) ports.PreScoreRequest {
		return ports.PreScoreRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID, Phone: phone(in.Phone), ClientData: client(in.ClientData)}
	}
	h := map[string]handler{}
	if s.Scoring != nil {
		h["pre-score/request"] = decode(func(ctx context.Context, in applicant, key string) (any, error) {
			return struct{}{}, s.Scoring.RequestPreScore(ctx, pre(in, key))
		})
		h["pre-score/result"] = decode(func(ctx context.Context, in applicant, key string) (any, error) {
			a, err := s.Scoring.PreScoreResult(ctx, pre(in, key))
			out := preScoreAnswer{answer: wireAnswer(a.Answer)}
			if a.Status == ports.AnswerApproved {
				out.AmountLimit, out.Percent, out.MonthPeriod = a.Result.AmountLimit, a.Result.Percent.String(), a.Result.MonthPeriod
			}
			return out, err
		})
		h["post-score"] = decode(func(ctx context.Context, in postScoreRequest, key string) (any, error) {
			r, err := s.Scoring.PostScore(ctx, ports.PostScoreRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID,
				Offer: fromOffer(in.Offer), ClientData: client(in.ClientData)})
			return postScoreAnswer{Approved: r.Approved, Reason: r.Reason, PhoneCallRequired: r.PhoneCallRequired, CallCentrePhone: r.CallCentrePhone}, err
		})
	}
	if cb := s.CoreBanking; cb != nil {
		h["accounts/open"] = decode(func(ctx context.Context, in applicant, key string) (any, error) {
			n, err := cb.OpenAccount(ctx, ports.OpenAccountRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID,
				Phone: phone(in.Phone), ClientData: client(in.ClientData)})
			return accountBody{AccountNumber: n}, err
		})
		h["loan-applications/open"] = decode(func(ctx context.Context, in loanApplicationRequest, key string) (any, error) {
			ref, err := cb.OpenLoanApplication(ctx, ports.LoanApplicationRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID,
				AccountNumber: in.AccountNumber, Offer: fromOffer(in.Offer)})
			return refBody{Ref: ref}, err
		})
		h["loan-applications/result"] = decode(func(ctx context.Context, in refBody, _ string) (any, error) {
			a, err := cb.LoanApplicationResult(ctx, in.Ref)
			return wireAnswer(a), err
		})
		h["loans/issue"] = decode(func(ctx context.Context, in issueLoanRequest, key string) (any, error) {
			ref, err := cb.IssueLoan(ctx, ports.IssueLoanRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID,
				AccountNumber: in.AccountNumber, LoanApplicationRef: in.LoanApplicationRef, Amount: in.Amount, At: in.At})
			return refBody{Ref: ref}, err
		})
		h["loans/issuance-result"] = decode(func(ctx context.Context, in refBody, _ string) (any, error) {
			a, err := cb.IssuanceResult(ctx, in.Ref)
			return wireAnswer(a), err
		})
		h["balances/get"] = decode(func(ctx context.Context, in balancesQuery, _ string) (any, error) {
			day, err := time.Parse(time.DateOnly, in.Day)
			if err != nil {
				return nil, err
			}
			bs, err := cb.Balances(ctx, day)
			out := balances{Balances: make([]balance, len(bs))}
			for i, b := range bs {
				out.Balances[i] = balance{Account: b.Account, Kind: string(b.Kind), Balance: b.Balance}
			}
			return out, err
		})
		h["loans/contract-number"] = decode(func(ctx context.Context, in contractRequest, key string) (any, error) {
			n, err := cb.ContractNumber(ctx, ports.ContractRequest{IdempotencyKey: key, ApplicationID: in.ApplicationID, AccountNumber: in.AccountNumber})
			return contractBody{ContractNumber: n}, err
		})
	}
	if p := s.Processing; p != nil {
		h["credits/prepare"] = decode(func(ctx context.Context, in creditRequest, key string) (any, error) {
			t, err := p.PrepareCredit(ctx, ports.CreditRequest{IdempotencyKey: key, PAN: pan(in.PAN), CardToken: in.CardToken,
				Network: network(in.Network), Amount: in.Amount, CardHolder: in.CardHolder})
			return tokenBody{Token: t}, err
		})
		credit := func(f func(context.Context, ports.CreditOrder) (ports.CreditResult, error)) handler {
			return decode(func(ctx context.Context, in creditOrder, key string) (any, error) {
				r, err := f(ctx, ports.CreditOrder{IdempotencyKey: key, Token: in.Token, Amount: in.Amount, Network: network(in.Network), At: in.At,
					AccountNumber: in.AccountNumber})
				return creditResult{Credited: r.Credited, Reason: r.Reason}, err
			})
		}
		h["credits/execute"], h["credits/status"] = credit(p.Credit), credit(p.CreditStatus)
		h["debits/lookup"] = decode(func(ctx context.Context, in debitQuery, _ string) (any, error) {
			d, err := p.LookupDebit(ctx, ports.DebitQuery{DebitID: in.DebitID, Network: network(in.Network), Amount: in.Amount, At: in.At})
			return debit{DebitID: d.ID, Network: d.Network.String(), Amount: d.Amount, Succeeded: d.Succeeded}, err
		})
		h["statements/get"] = decode(func(ctx context.Context, in statementQuery, _ string) (any, error) {
			day, err := time.Parse(time.DateOnly, in.Day)
			if err != nil {
				return nil, err
			}
			lines, err := p.Statement(ctx, ports.StatementQuery{Network: network(in.Network), Day: day})
			out := statement{Lines: make([]statementLine, len(lines))}
			for i, l := range lines {
				out.Lines[i] = statementLine{ID: l.ID, Kind: string(l.Kind), Amount: l.Amount, At: l.At, Status: string(l.Status)}
			}
			return out, err
		})
		h["cards/lookup"] = decode(func(ctx context.Context, in cardQuery, _ string) (any, error) {
			exp, _ := domain.ParseExpiry(in.Expiry, time.Now())
			ref, err := p.LookupCard(ctx, ports.CardQuery{PAN: pan(in.PAN), Expiry: exp, Network: network(in.Network), Phone: phone(in.Phone)})
			return refBody{Ref: ref}, err
		})
		h["cards/tokenise"] = decode(func(ctx context.Context, in refBody, _ string) (any, error) {
			t, err := p.Tokenise(ctx, in.Ref)
			return tokenBody{Token: t}, err
		})
		h["cards/state"] = decode(func(ctx context.Context, in cardState, _ string) (any, error) {
			st, _ := domain.ParseCardStatus(in.Status)
			return struct{}{}, p.SetCardState(ctx, in.Token, st)
		})
	}
	if s.SMS != nil {
		h["sms/send"] = decode(func(ctx context.Context, in smsBody, _ string) (any, error) {
			return struct{}{}, s.SMS.Send(ctx, ports.SMS{Phone: phone(in.Phone), Text: in.Text, Card: in.Card})
		})
	}
	if ci := s.CardIssuer; ci != nil {
		h["cards/order"] = decode(func(ctx context.Context, in cardOrder, key string) (any, error) {
			ref, err := ci.Order(ctx, ports.CardIssueRequest{IdempotencyKey: key, OrderID: in.OrderID, Phone: phone(in.Phone),
				ClientData: client(in.ClientData)})
			return refBody{Ref: ref}, err
		})
		h["cards/order-result"] = decode(func(ctx context.Context, in refBody, _ string) (any, error) {
			a, err := ci.Result(ctx, in.Ref)
			out := issuedCard{answer: wireAnswer(a.Answer)}
			if a.Status == ports.AnswerApproved {
				out.Network, out.MaskedPAN, out.Expiry, out.Token = a.Card.Network.String(), a.Card.MaskedPAN, a.Card.Expiry.String(), a.Card.Token
			}
			return out, err
		})
	}
	if gl := s.GL; gl != nil {
		h["journals/post"] = decode(func(ctx context.Context, in glJournal, key string) (any, error) {
			day, err := time.Parse(time.DateOnly, in.Day)
			if err != nil {
				return nil, err
			}
			j := ports.GLJournal{IdempotencyKey: key, Day: day, Sequence: in.Sequence, Lines: make([]ports.GLLine, len(in.Lines))}
			for i, l := range in.Lines {
				j.Lines[i] = ports.GLLine{GL: l.GL, Debits: l.Debits, Credits: l.Credits}
			}
			ack, err := gl.PostJournal(ctx, j)
			return glAck{Ref: ack.Ref, Debits: &ack.Debits, Credits: &ack.Credits}, err
		})
	}
	return h
}
