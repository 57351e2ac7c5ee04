package httpgw

import (
	"context"
	"fmt"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Scoring is ports.Scoring over the protocol.
type Scoring struct{ c *client }

// NewScoring returns the Scoring adapter of cfg.
func NewScoring(cfg Config) *Scoring { return &Scoring{newClient("scoring", cfg)} }

func wireOffer(o domain.Offer) offer {
	return offer{Amount: o.Amount.Tiyin(), Percent: o.Percent.String(), MonthPeriod: o.MonthPeriod, BackupPhone: o.BackupPhone.String()}
}

func (a answer) port() (ports.Answer, error) {
	switch a.Status {
	case "PENDING":
		return ports.Answer{Status: ports.AnswerPending}, nil
	case "APPROVED":
		return ports.Answer{Status: ports.AnswerApproved}, nil
	case "DECLINED":
		return ports.Answer{Status: ports.AnswerDeclined, Reason: a.Reason}, nil
	}
	return ports.Answer{}, fmt.Errorf("%w: unknown answer status %q", ports.ErrGatewayTransient, a.Status)
}

// RequestPreScore implements ports.Scoring.
func (s *Scoring) RequestPreScore(ctx context.Context, req ports.PreScoreRequest) error {
	return s.c.call(ctx, "pre-score/request", req.IdempotencyKey, true, wireApplicant(req.ApplicationID, req.Phone, req.ClientData), nil)
}

// PreScoreResult implements ports.Scoring.
func (s *Scoring) PreScoreResult(ctx context.Context, req ports.PreScoreRequest) (ports.PreScoreAnswer, error) {
	var out preScoreAnswer
	err := s.c.call(ctx, "pre-score/result", req.IdempotencyKey, true, wireApplicant(req.ApplicationID, req.Phone, req.ClientData), &out)
	if err != nil {
		return ports.PreScoreAnswer{}, err
	}
	a, err := out.port()
	if err != nil || a.Status != ports.AnswerApproved {
		return ports.PreScoreAnswer{Answer: a}, err
	}
	pct, err := domain.ParsePercent(out.Percent)
	if err != nil || out.AmountLimit <= 0 || out.MonthPeriod <= 0 {
		return ports.PreScoreAnswer{}, fmt.Errorf("%w: an approval without a valid offer range", ports.ErrGatewayTransient)
	}
	return ports.PreScoreAnswer{Answer: a, Result: domain.PreScoreResult{AmountLimit: out.AmountLimit, Percent: pct, MonthPeriod: out.MonthPeriod}}, nil
}

// PostScore implements ports.Scoring.
func (s *Scoring) PostScore(ctx context.Context, req ports.PostScoreRequest) (domain.PostScoreResult, error) {
	var out postScoreAnswer
	err := s.c.call(ctx, "post-score", req.IdempotencyKey, true, postScoreRequest{ApplicationID: req.ApplicationID,
		Offer: wireOffer(req.Offer), ClientData: wireClient(req.ClientData)}, &out)
	return domain.PostScoreResult{Approved: out.Approved, Reason: out.Reason, PhoneCallRequired: out.PhoneCallRequired,
		CallCentrePhone: out.CallCentrePhone}, err
}

// CoreBanking is ports.CoreBanking over the protocol.
type CoreBanking struct{ c *client }

// NewCoreBanking returns the CoreBanking adapter of cfg.
func NewCoreBanking(cfg Config) *CoreBanking { return &CoreBanking{newClient("core_banking", cfg)} }

// nonEmpty refuses a success that lacks its one field: the answer is not the protocol's.
func nonEmpty(v string, err error) (string, error) {
	if err == nil && v == "" {
		return "", fmt.Errorf("%w: a success without its value", ports.ErrGatewayTransient)
	}
	return v, err
}

// OpenAccount implements ports.CoreBanking.
func (cb *CoreBanking) OpenAccount(ctx context.Context, req ports.OpenAccountRequest) (string, error) {
	var out accountBody
	err := cb.c.call(ctx, "accounts/open", req.IdempotencyKey, true, wireApplicant(req.ApplicationID, req.Phone, req.ClientData), &out)
	return nonEmpty(out.AccountNumber, err)
}

// OpenLoanApplication implements ports.CoreBanking.
func (cb *CoreBanking) OpenLoanApplication(ctx context.Context, req ports.LoanApplicationRequest) (string, error) {
	var out refBody
	err := cb.c.call(ctx, "loan-applications/open", req.IdempotencyKey, true, loanApplicationRequest{ApplicationID: req.ApplicationID,
		AccountNumber: req.AccountNumber, Offer: wireOffer(req.Offer)}, &out)
	return nonEmpty(out.Ref, err)
}

func (cb *CoreBanking) result(ctx context.Context, op, ref string) (ports.Answer, error) {
	var out answer
	if err := cb.c.call(ctx, op, "", true, refBody{Ref: ref}, &out); err != nil {
		return ports.Answer{}, err
	}
	return out.port()
}

// LoanApplicationResult implements ports.CoreBanking.
func (cb *CoreBanking) LoanApplicationResult(ctx context.Context, ref string) (ports.Answer, error) {
	return cb.result(ctx, "loan-applications/result", ref)
}

// IssueLoan implements ports.CoreBanking.
func (cb *CoreBanking) IssueLoan(ctx context.Context, req ports.IssueLoanRequest) (string, error) {
	var out refBody
	err := cb.c.call(ctx, "loans/issue", req.IdempotencyKey, true, issueLoanRequest{ApplicationID: req.ApplicationID,
		AccountNumber: req.AccountNumber, LoanApplicationRef: req.LoanApplicationRef, Amount: req.Amount, At: req.At}, &out)
	return nonEmpty(out.Ref, err)
}

// IssuanceResult implements ports.CoreBanking.
func (cb *CoreBanking) IssuanceResult(ctx context.Context, ref string) (ports.Answer, error) {
	return cb.result(ctx, "loans/issuance-result", ref)
}

// ContractNumber implements ports.CoreBanking.
func (cb *CoreBanking) ContractNumber(ctx context.Context, req ports.ContractRequest) (string, error) {
	var out contractBody
	err := cb.c.call(ctx, "loans/contract-number", req.IdempotencyKey, true,
		contractRequest{ApplicationID: req.ApplicationID, AccountNumber: req.AccountNumber}, &out)
	return nonEmpty(out.ContractNumber, err)
}

// Balances implements ports.CoreBanking. A balance of a kind tiyin does not read fails the
// call, as a transient error: the day is reconciled later rather than on balances read wrong.
func (cb *CoreBanking) Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error) {
	var out balances
	if err := cb.c.call(ctx, "balances/get", "", true, balancesQuery{Day: domain.BusinessDate(day).Format(time.DateOnly)}, &out); err != nil {
		return nil, err
	}
	bs := make([]domain.AccountBalance, len(out.Balances))
	for i, b := range out.Balances {
		kind := domain.LineKind(b.Kind)
		if kind != domain.LineDemand && kind != domain.LineLoan {
			return nil, fmt.Errorf("%w: balance of %q is of kind %q", ports.ErrGatewayTransient, b.Account, b.Kind)
		}
		bs[i] = domain.AccountBalance{Account: b.Account, Kind: kind, Balance: b.Balance}
	}
	return bs, nil
}

// Processing is ports.Processing over the protocol.
type Processing struct{ c *client }

// NewProcessing returns the Processing adapter of cfg.
func NewProcessing(cfg Config) *Processing { return &Processing{newClient("processing", cfg)} }

// PrepareCredit implements ports.Processing.
func (p *Processing) PrepareCredit(ctx context.Context, req ports.CreditRequest) (string, error) {
	var out tokenBody
	err := p.c.call(ctx, "credits/prepare", req.IdempotencyKey, true, creditRequest{PAN: req.PAN.Digits(), CardToken: req.CardToken,
		Network: req.Network.String(), Amount: req.Amount, CardHolder: req.CardHolder}, &out)
	return nonEmpty(out.Token, err)
}

func (p *Processing) credit(ctx context.Context, op string, o ports.CreditOrder) (ports.CreditResult, error) {
	var out creditResult
	err := p.c.call(ctx, op, o.IdempotencyKey, true, creditOrder{Token: o.Token, Amount: o.Amount, Network: o.Network.String(), At: o.At,
		AccountNumber: o.AccountNumber}, &out)
	return ports.CreditResult{Credited: out.Credited, Reason: out.Reason}, err
}

// Credit implements ports.Processing.
func (p *Processing) Credit(ctx context.Context, o ports.CreditOrder) (ports.CreditResult, error) {
	return p.credit(ctx, "credits/execute", o)
}

// CreditStatus implements ports.Processing.
func (p *Processing) CreditStatus(ctx context.Context, o ports.CreditOrder) (ports.CreditResult, error) {
	return p.credit(ctx, "credits/status", o)
}

// LookupDebit implements ports.Processing.
func (p *Processing) LookupDebit(ctx context.Context, q ports.DebitQuery) (domain.Debit, error) {
	var out debit
	if err := p.c.call(ctx, "debits/lookup", "", true, debitQuery{DebitID: q.DebitID, Network: q.Network.String(), Amount: q.Amount, At: q.At}, &out); err != nil {
		return domain.Debit{}, err
	}
	n, err := domain.ParseNetwork(out.Network)
	if err != nil || out.DebitID != q.DebitID {
		return domain.Debit{}, fmt.Errorf("%w: the debit answered is not the one asked for", ports.ErrGatewayTransient)
	}
	return domain.Debit{ID: out.DebitID, Network: n, Amount: out.Amount, Succeeded: out.Succeeded}, nil
}

// Statement implements ports.Processing. A line the network answers in a form tiyin does not
// read (an unknown kind or status) fails the call, as a transient error: the day is reconciled
// later rather than on a statement read wrong.
func (p *Processing) Statement(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	var out statement
	if err := p.c.call(ctx, "statements/get", "", true, statementQuery{Network: q.Network.String(), Day: domain.BusinessDate(q.Day).Format(time.DateOnly)}, &out); err != nil {
		return nil, err
	}
	lines := make([]domain.StatementLine, len(out.Lines))
	for i, l := range out.Lines {
		kind, status := domain.LineKind(l.Kind), domain.LineStatus(l.Status)
		if kind != domain.LineCredit && kind != domain.LineDebit || status != domain.LineDone && status != domain.LineFailed && status != domain.LineReversed {
			return nil, fmt.Errorf("%w: statement line %q is %s %s", ports.ErrGatewayTransient, l.ID, l.Kind, l.Status)
		}
		lines[i] = domain.StatementLine{ID: l.ID, Kind: kind, Amount: l.Amount, At: l.At, Status: status}
	}
	return lines, nil
}

// LookupCard implements ports.Processing.
func (p *Processing) LookupCard(ctx context.Context, q ports.CardQuery) (string, error) {
	var out refBody
	err := p.c.call(ctx, "cards/lookup", "", true, cardQuery{PAN: q.PAN.Digits(), Expiry: q.Expiry.String(),
		Network: q.Network.String(), Phone: q.Phone.String()}, &out)
	return nonEmpty(out.Ref, err)
}

// Tokenise implements ports.Processing.
func (p *Processing) Tokenise(ctx context.Context, ref string) (string, error) {
	var out tokenBody
	err := p.c.call(ctx, "cards/tokenise", ref, true, refBody{Ref: ref}, &out)
	return nonEmpty(out.Token, err)
}

// SetCardState implements ports.Processing.
func (p *Processing) SetCardState(ctx context.Context, token string, status domain.CardStatus) error {
	return p.c.call(ctx, "cards/state", token+":"+status.String(), true, cardState{Token: token, Status: status.String()}, new(struct{}))
}

// SMSSender is ports.SMSSender over the protocol.
type SMSSender struct{ c *client }

// NewSMSSender returns the SMSSender adapter of cfg.
func NewSMSSender(cfg Config) *SMSSender { return &SMSSender{newClient("sms", cfg)} }

// Send implements ports.SMSSender. It is not retried: a message has no idempotency key, and a
// retry could send it twice.
func (s *SMSSender) Send(ctx context.Context, m ports.SMS) error {
	return s.c.call(ctx, "sms/send", "", false, smsBody{Phone: m.Phone.String(), Text: m.Text, Card: m.Card}, new(struct{}))
}

// CardIssuer is ports.CardIssuer over the protocol.
type CardIssuer struct{ c *client }

// NewCardIssuer returns the CardIssuer adapter of cfg.
func NewCardIssuer(cfg Config) *CardIssuer { return &CardIssuer{newClient("card_issuer", cfg)} }

// Order implements ports.CardIssuer.
func (ci *CardIssuer) Order(ctx context.Context, req ports.CardIssueRequest) (string, error) {
	var out refBody
	err := ci.c.call(ctx, "cards/order", req.IdempotencyKey, true, cardOrder{OrderID: req.OrderID, Phone: req.Phone.String(),
		ClientData: wireClient(req.ClientData)}, &out)
	return nonEmpty(out.Ref, err)
}

// Result implements ports.CardIssuer.
func (ci *CardIssuer) Result(ctx context.Context, ref string) (ports.CardIssueAnswer, error) {
	var out issuedCard
	if err := ci.c.call(ctx, "cards/order-result", "", true, refBody{Ref: ref}, &out); err != nil {
		return ports.CardIssueAnswer{}, err
	}
	a, err := out.port()
	if err != nil || a.Status != ports.AnswerApproved {
		return ports.CardIssueAnswer{Answer: a}, err
	}
	n, nErr := domain.ParseNetwork(out.Network)
	exp, eErr := domain.ParseExpiry(out.Expiry, time.Now())
	if nErr != nil || eErr != nil || out.Token == "" || out.MaskedPAN == "" {
		return ports.CardIssueAnswer{}, fmt.Errorf("%w: an issued card without its network, expiry, number or token", ports.ErrGatewayTransient)
	}
	return ports.CardIssueAnswer{Answer: a, Card: ports.IssuedCard{Network: n, MaskedPAN: out.MaskedPAN, Expiry: exp, Token: out.Token}}, nil
}

// GeneralLedger is ports.GeneralLedger over the protocol.
type GeneralLedger struct{ c *client }

// NewGeneralLedger returns the GeneralLedger adapter of cfg.
func NewGeneralLedger(cfg Config) *GeneralLedger {
	return &GeneralLedger{newClient("general_ledger", cfg)}
}

// PostJournal implements ports.GeneralLedger.
func (gl *GeneralLedger) PostJournal(ctx context.Context, j ports.GLJournal) (ports.GLAck, error) {
	body := glJournal{Day: domain.BusinessDate(j.Day).Format(time.DateOnly), Sequence: j.Sequence, Lines: make([]glLine, len(j.Lines))}
	for i, l := range j.Lines {
		body.Lines[i] = glLine{GL: l.GL, Debits: l.Debits, Credits: l.Credits}
	}
	var out glAck
	err := gl.c.call(ctx, "journals/post", j.IdempotencyKey, true, body, &out)
	ref, err := nonEmpty(out.Ref, err)
	if err != nil {
		return ports.GLAck{}, err
	}
	if out.Debits == nil || out.Credits == nil {
		return ports.GLAck{}, fmt.Errorf("%w: an acknowledgement without the debits and credits posted", ports.ErrGatewayTransient)
	}
	return ports.GLAck{Ref: ref, Debits: *out.Debits, Credits: *out.Credits}, nil
}
