package domain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The books' daily proof (docs/accounting.md, "The daily proof"): after each close, for the day
// closed, (a) the sum over loans of each per-loan account kind equals the kind's control
// account, and (b) what core banking acknowledged of each post of the day to its general ledger
// equals what tiyin posted. A difference is a reconciliation break of the source SourceBooks,
// worked in the console like the others; the books are never adjusted to make it go away. This
// file is the comparison, a pure function of the figures; reading them and recording the
// breaks are the application's.

// SourceBooks names the books' daily proof where a run or a break names its source: the other
// side is the control account of a kind, or core banking's general ledger.
const SourceBooks = "BOOKS"

// The break kinds of the books' proof.
const (
	// BreakSubledgerDiffers: the sum over loans of a per-loan account kind's closing balances
	// is not the kind's control account (the trial balance's closing balance of the kind).
	BreakSubledgerDiffers BreakKind = "SUBLEDGER_DIFFERS"
	// BreakGLAckDiffers: core banking acknowledged a post to its general ledger with other
	// debits or credits than the journal tiyin posted.
	BreakGLAckDiffers BreakKind = "GL_ACK_DIFFERS"
)

// The line kinds of the books' proof.
const (
	// LineControl is an account kind's closing balance: the sum over loans (tiyin's side)
	// against its control account (the other side). Its id is the kind.
	LineControl LineKind = "CONTROL"
	// LineGLPost is a post's debits or its credits: the journal tiyin posted (tiyin's side)
	// against core banking's acknowledgement (the other side). Its id is GLPostLineID's.
	LineGLPost LineKind = "GL_POST"
)

// IssueAccountKinds are the accounts a loan's issuance opens, and BooksAccountKinds those its
// first close opens (or its write-off, before that close); a loan an earlier version wrote off
// on the cash basis has a WRITTEN_OFF account too.
var (
	IssueAccountKinds = []AccountKind{AccountLoan, AccountDemand, AccountHold}
	BooksAccountKinds = []AccountKind{AccountOverduePrincipal, AccountInterestReceivable, AccountServiceReceivable,
		AccountPenaltyReceivable, AccountInterestInAdvance, AccountServiceInAdvance, AccountProvision,
		AccountMemoNonAccruedInterest, AccountMemoNonAccruedService, AccountMemoNonAccruedPenalty,
		AccountMemoNonAccruedContra, AccountMemoWrittenOff, AccountMemoWrittenOffContra}
)

// PerLoan reports a kind kept one account a loan (KIND:<loan id>): the sum over loans of such a
// kind is its general ledger control account.
func (k AccountKind) PerLoan() bool {
	return k == AccountWrittenOff || slices.Contains(IssueAccountKinds, k) || slices.Contains(BooksAccountKinds, k)
}

// Normalised is a balance of debits minus credits in the kind's normal sign: as it is for a
// debit-normal kind, its credits less its debits for a credit-normal one.
func (k AccountKind) Normalised(debitsLessCredits int64) int64 {
	if k.Normal() == SideCredit {
		return -debitsLessCredits
	}
	return debitsLessCredits
}

// SubledgerBalance is an account kind at a day's end, debits minus credits: the sum over loans
// of the loans' accounts of the kind, and the kind's control account.
type SubledgerBalance struct {
	Kind    AccountKind
	Loans   int64
	Control int64
}

// ProveSubledger compares, for each per-loan kind, the sum over loans with the control account
// at the day's end: a kind that agrees is matched (a kind the figures do not list stands at
// zero on both sides), and each that does not is a SUBLEDGER_DIFFERS break, both balances in
// the kind's normal sign, in the order of AccountKinds. Kinds not kept per loan have no sum over
// loans and are not compared.
func ProveSubledger(balances []SubledgerBalance, dayEnd time.Time) (matched int, breaks []Break) {
	by := map[AccountKind]SubledgerBalance{}
	for _, b := range balances {
		s := by[b.Kind]
		by[b.Kind] = SubledgerBalance{Kind: b.Kind, Loans: s.Loans + b.Loans, Control: s.Control + b.Control}
	}
	for _, k := range AccountKinds() {
		if !k.PerLoan() {
			continue
		}
		b := by[k]
		if b.Loans == b.Control {
			matched++
			continue
		}
		id := k.String()
		breaks = append(breaks, Break{Kind: BreakSubledgerDiffers, LineID: id,
			Ours:   &StatementLine{ID: id, Kind: LineControl, Amount: k.Normalised(b.Loans), At: dayEnd, Status: LineDone},
			Theirs: &StatementLine{ID: id, Kind: LineControl, Amount: k.Normalised(b.Control), At: dayEnd, Status: LineDone}})
	}
	return matched, breaks
}

// Turnover is a journal's debits and credits, in tiyin.
type Turnover struct{ Debits, Credits int64 }

// GLPostProof is one post of a day to the bank's general ledger: its key ("<day>:<sequence>"),
// the totals of the journal tiyin posted, and the totals core banking acknowledged.
type GLPostProof struct {
	Key                  string
	Posted, Acknowledged Turnover
}

// GLPostLineID is the id of a post's debits ("2026-12-06:1:DEBITS") or credits (":CREDITS").
func GLPostLineID(key string, credits bool) string {
	if credits {
		return key + ":CREDITS"
	}
	return key + ":DEBITS"
}

// ProveGLAcknowledgements compares each acknowledged post's totals with core banking's: a post
// whose debits and credits both agree is matched; each side that does not is a GL_ACK_DIFFERS
// break (the debits' before the credits'), in the order of the posts' keys.
func ProveGLAcknowledgements(posts []GLPostProof, dayEnd time.Time) (matched int, breaks []Break) {
	posts = slices.Clone(posts)
	slices.SortFunc(posts, func(a, b GLPostProof) int { return compareGLKeys(a.Key, b.Key) })
	for _, p := range posts {
		ok := true
		for _, side := range []struct {
			credits      bool
			ours, theirs int64
		}{{false, p.Posted.Debits, p.Acknowledged.Debits}, {true, p.Posted.Credits, p.Acknowledged.Credits}} {
			if side.ours == side.theirs {
				continue
			}
			ok = false
			id := GLPostLineID(p.Key, side.credits)
			breaks = append(breaks, Break{Kind: BreakGLAckDiffers, LineID: id,
				Ours:   &StatementLine{ID: id, Kind: LineGLPost, Amount: side.ours, At: dayEnd, Status: LineDone},
				Theirs: &StatementLine{ID: id, Kind: LineGLPost, Amount: side.theirs, At: dayEnd, Status: LineDone}})
		}
		if ok {
			matched++
		}
	}
	return matched, breaks
}

// compareGLKeys orders "<day>:<sequence>" keys by day, then by sequence as a number.
func compareGLKeys(a, b string) int {
	da, sa, _ := strings.Cut(a, ":")
	db, sb, _ := strings.Cut(b, ":")
	if c := strings.Compare(da, db); c != 0 {
		return c
	}
	na, _ := strconv.Atoi(sa)
	nb, _ := strconv.Atoi(sb)
	return na - nb
}

// BooksBreak reports a break of the books' proof: a difference inside the books, or between
// them and the general ledger, which no network's or client's money explains.
func (b Break) BooksBreak() bool {
	return b.Kind == BreakSubledgerDiffers || b.Kind == BreakGLAckDiffers
}

// Acceptable reports whether the break's other side can be accepted (AcceptNetworkSide): a
// credit's or a debit's, not a balance (it follows from the movements) nor a break of the books'
// proof (the books are never adjusted to agree with themselves or with the general ledger).
func (b Break) Acceptable() bool {
	return b.Kind != BreakBalanceDiffers && !b.BooksBreak()
}

// errBooksBreakNotAccepted is AcceptNetworkSide's refusal of a break of the books' proof.
var errBooksBreakNotAccepted = fmt.Errorf("%w: a break of the books' daily proof is never booked away: find its cause "+
	"(docs/reconciliation.md, \"The books' daily proof\"), have it fixed where it arose, then explain it", ErrWrongState)
