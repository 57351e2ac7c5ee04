package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// Issue 47, 4: which breaks' explanation takes a second officer.
func TestBreakMoneyAgrees(t *testing.T) {
	t.Parallel()
	at := time.Date(2027, 3, 1, 10, 0, 0, 0, domain.Tashkent)
	l := func(kind domain.LineKind, amount int64, status domain.LineStatus) *domain.StatementLine {
		return &domain.StatementLine{ID: "x", Kind: kind, Amount: amount, At: at, Status: status}
	}
	credit := func(amount int64, status domain.LineStatus) *domain.StatementLine {
		return l(domain.LineCredit, amount, status)
	}
	debit := func(amount int64, status domain.LineStatus) *domain.StatementLine {
		return l(domain.LineDebit, amount, status)
	}
	cases := []struct {
		name  string
		b     domain.Break
		agree bool
	}{
		{"a credit the network never made", domain.Break{Kind: domain.BreakMissingAtNetwork, Ours: credit(1_000_000, domain.LineDone)}, false},
		{"a credit tiyin never made", domain.Break{Kind: domain.BreakMissingInTiyin, Theirs: credit(5, domain.LineDone)}, false},
		{"a drifted credit", domain.Break{Kind: domain.BreakAmountDiffers, Ours: credit(10, domain.LineDone), Theirs: credit(9, domain.LineDone)}, false},
		{"a doubled credit", domain.Break{Kind: domain.BreakDuplicate, Ours: credit(10, domain.LineDone), Theirs: credit(10, domain.LineDone)}, false},
		{"a reversed debit", domain.Break{Kind: domain.BreakStatusDiffers, Ours: debit(7, domain.LineDone), Theirs: debit(7, domain.LineReversed)}, false},
		{"a balance", domain.Break{Kind: domain.BreakBalanceDiffers, Ours: l(domain.LineDemand, 0, domain.LineDone), Theirs: l(domain.LineDemand, 0, domain.LineDone)}, false},
		{"an outcome tiyin does not know", domain.Break{Kind: domain.BreakStatusDiffers, Ours: credit(10, domain.LineUnknown), Theirs: credit(10, domain.LineFailed)}, false},
		{"a sub-ledger apart from its control account", domain.Break{Kind: domain.BreakSubledgerDiffers, Ours: l(domain.LineControl, 0, domain.LineDone), Theirs: l(domain.LineControl, 0, domain.LineDone)}, false},
		{"a post acknowledged otherwise", domain.Break{Kind: domain.BreakGLAckDiffers, Ours: l(domain.LineGLPost, 5, domain.LineDone), Theirs: l(domain.LineGLPost, 5, domain.LineDone)}, false},
		{"a debit the network lists reversed, tiyin has none", domain.Break{Kind: domain.BreakMissingInTiyin, Theirs: debit(7, domain.LineReversed)}, true},
		{"failed here, reversed there", domain.Break{Kind: domain.BreakStatusDiffers, Ours: credit(7, domain.LineFailed), Theirs: credit(7, domain.LineReversed)}, true},
	}
	for _, c := range cases {
		if got := c.b.MoneyAgrees(); got != c.agree {
			t.Errorf("%s: MoneyAgrees() = %t, want %t", c.name, got, c.agree)
		}
	}
}

// Issue 47, 3: a proposal covering several breaks at once.
func TestProposalCoversBreaks(t *testing.T) {
	t.Parallel()
	a, b, batch := uuid.New(), uuid.New(), uuid.New()
	cases := []struct {
		name   string
		kind   domain.ProposalKind
		breaks []uuid.UUID
		object uuid.UUID
		covers int
		err    error
	}{
		{"one break is the object", domain.AcceptBreak, []uuid.UUID{a}, a, 1, nil},
		{"one break twice is one", domain.ExplainBreak, []uuid.UUID{a, a}, a, 1, nil},
		{"several are a batch", domain.AcceptBreak, []uuid.UUID{a, b, a}, batch, 2, nil},
		{"none", domain.ExplainBreak, nil, uuid.Nil, 0, domain.ErrProposalIncomplete},
		{"too many", domain.AcceptBreak, make([]uuid.UUID, 0, domain.MaxBreaksAtOnce+1), uuid.Nil, 0, domain.ErrProposalIncomplete},
		{"not a break's", domain.ResolveTransfer, []uuid.UUID{a}, uuid.Nil, 0, domain.ErrProposalIncomplete},
	}
	for _, c := range cases {
		if c.name == "too many" {
			for range domain.MaxBreaksAtOnce + 1 {
				c.breaks = append(c.breaks, uuid.New())
			}
		}
		p, err := domain.NewProposal(uuid.New(), c.kind, uuid.Nil, true, "", "the network's file", uuid.New(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		err = p.CoverBreaks(batch, c.breaks)
		if !errors.Is(err, c.err) || err == nil && c.err != nil {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
			continue
		}
		if err == nil && (p.ObjectID != c.object || len(p.Covers()) != c.covers) {
			t.Errorf("%s: object %s covering %d, want %s covering %d", c.name, p.ObjectID, len(p.Covers()), c.object, c.covers)
		}
	}
}
