package guard

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

type scoring struct {
	g    *Guard
	next ports.Scoring
}

func (s scoring) RequestPreScore(ctx context.Context, req ports.PreScoreRequest) error {
	_, err := call(ctx, s.g, "scoring", "RequestPreScore", none(func(ctx context.Context) error { return s.next.RequestPreScore(ctx, req) }))
	return err
}

func (s scoring) PreScoreResult(ctx context.Context, req ports.PreScoreRequest) (ports.PreScoreAnswer, error) {
	return call(ctx, s.g, "scoring", "PreScoreResult", func(ctx context.Context) (ports.PreScoreAnswer, error) {
		return s.next.PreScoreResult(ctx, req)
	})
}

func (s scoring) PostScore(ctx context.Context, req ports.PostScoreRequest) (domain.PostScoreResult, error) {
	return call(ctx, s.g, "scoring", "PostScore", func(ctx context.Context) (domain.PostScoreResult, error) {
		return s.next.PostScore(ctx, req)
	})
}

type coreBanking struct {
	g    *Guard
	next ports.CoreBanking
}

func (c coreBanking) OpenAccount(ctx context.Context, req ports.OpenAccountRequest) (string, error) {
	return call(ctx, c.g, "corebanking", "OpenAccount", func(ctx context.Context) (string, error) { return c.next.OpenAccount(ctx, req) })
}

func (c coreBanking) OpenLoanApplication(ctx context.Context, req ports.LoanApplicationRequest) (string, error) {
	return call(ctx, c.g, "corebanking", "OpenLoanApplication", func(ctx context.Context) (string, error) {
		return c.next.OpenLoanApplication(ctx, req)
	})
}

func (c coreBanking) LoanApplicationResult(ctx context.Context, ref string) (ports.Answer, error) {
	return call(ctx, c.g, "corebanking", "LoanApplicationResult", func(ctx context.Context) (ports.Answer, error) {
		return c.next.LoanApplicationResult(ctx, ref)
	})
}

func (c coreBanking) IssueLoan(ctx context.Context, req ports.IssueLoanRequest) (string, error) {
	return call(ctx, c.g, "corebanking", "IssueLoan", func(ctx context.Context) (string, error) { return c.next.IssueLoan(ctx, req) })
}

func (c coreBanking) IssuanceResult(ctx context.Context, ref string) (ports.Answer, error) {
	return call(ctx, c.g, "corebanking", "IssuanceResult", func(ctx context.Context) (ports.Answer, error) {
		return c.next.IssuanceResult(ctx, ref)
	})
}

func (c coreBanking) ContractNumber(ctx context.Context, req ports.ContractRequest) (string, error) {
	return call(ctx, c.g, "corebanking", "ContractNumber", func(ctx context.Context) (string, error) { return c.next.ContractNumber(ctx, req) })
}

func (c coreBanking) Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error) {
	return call(ctx, c.g, "corebanking", "Balances", func(ctx context.Context) ([]domain.AccountBalance, error) { return c.next.Balances(ctx, day) })
}

type processing struct {
	g    *Guard
	next ports.Processing
}

func (p processing) PrepareCredit(ctx context.Context, req ports.CreditRequest) (string, error) {
	return call(ctx, p.g, "processing", "PrepareCredit", func(ctx context.Context) (string, error) { return p.next.PrepareCredit(ctx, req) })
}

func (p processing) Credit(ctx context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	return call(ctx, p.g, "processing", "Credit", func(ctx context.Context) (ports.CreditResult, error) { return p.next.Credit(ctx, order) })
}

func (p processing) CreditStatus(ctx context.Context, order ports.CreditOrder) (ports.CreditResult, error) {
	return call(ctx, p.g, "processing", "CreditStatus", func(ctx context.Context) (ports.CreditResult, error) {
		return p.next.CreditStatus(ctx, order)
	})
}

func (p processing) LookupDebit(ctx context.Context, q ports.DebitQuery) (domain.Debit, error) {
	return call(ctx, p.g, "processing", "LookupDebit", func(ctx context.Context) (domain.Debit, error) { return p.next.LookupDebit(ctx, q) })
}

func (p processing) Statement(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	return call(ctx, p.g, "processing", "Statement", func(ctx context.Context) ([]domain.StatementLine, error) { return p.next.Statement(ctx, q) })
}

func (p processing) LookupCard(ctx context.Context, q ports.CardQuery) (string, error) {
	return call(ctx, p.g, "processing", "LookupCard", func(ctx context.Context) (string, error) { return p.next.LookupCard(ctx, q) })
}

func (p processing) Tokenise(ctx context.Context, ref string) (string, error) {
	return call(ctx, p.g, "processing", "Tokenise", func(ctx context.Context) (string, error) { return p.next.Tokenise(ctx, ref) })
}

func (p processing) SetCardState(ctx context.Context, token string, status domain.CardStatus) error {
	_, err := call(ctx, p.g, "processing", "SetCardState", none(func(ctx context.Context) error {
		return p.next.SetCardState(ctx, token, status)
	}))
	return err
}

type smsSender struct {
	g    *Guard
	next ports.SMSSender
}

func (s smsSender) Send(ctx context.Context, m ports.SMS) error {
	_, err := call(ctx, s.g, "sms", "Send", none(func(ctx context.Context) error { return s.next.Send(ctx, m) }))
	return err
}

type cardIssuer struct {
	g    *Guard
	next ports.CardIssuer
}

func (c cardIssuer) Order(ctx context.Context, req ports.CardIssueRequest) (string, error) {
	return call(ctx, c.g, "cardissuer", "Order", func(ctx context.Context) (string, error) { return c.next.Order(ctx, req) })
}

func (c cardIssuer) Result(ctx context.Context, ref string) (ports.CardIssueAnswer, error) {
	return call(ctx, c.g, "cardissuer", "Result", func(ctx context.Context) (ports.CardIssueAnswer, error) { return c.next.Result(ctx, ref) })
}

type generalLedger struct {
	g    *Guard
	next ports.GeneralLedger
}

func (l generalLedger) PostJournal(ctx context.Context, j ports.GLJournal) (ports.GLAck, error) {
	return call(ctx, l.g, "generalledger", "PostJournal", func(ctx context.Context) (ports.GLAck, error) { return l.next.PostJournal(ctx, j) })
}
