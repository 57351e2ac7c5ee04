package domain

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Reconciliation (issue 36) compares, for one business day and one network, the movements
// tiyin recorded with the ones the other side's statement lists, and names every difference a
// break. This file is the matching, a pure function of the two sides; running it, keeping the
// breaks and working them are the application's.

// ErrDayNotClosed means a reconciliation was asked of a business day not over yet (today or a
// day after it, Asia/Tashkent): its movements are not all in, and a run of it would leave the
// rest of the day unreconciled.
var ErrDayNotClosed = errors.New("only a closed business day can be reconciled, one before today (Asia/Tashkent)")

// DayClosed reports whether the business date day is over at now: it is before now's business
// date.
func DayClosed(day, now time.Time) bool { return BusinessDate(day).Before(BusinessDate(now)) }

// LineKind is which way a statement line moved money: a credit to a card (a transfer) or a
// debit of a card (a repayment).
type LineKind string

// The line kinds.
const (
	LineCredit LineKind = "CREDIT"
	LineDebit  LineKind = "DEBIT"
	// LineDemand and LineLoan are a closing balance of core banking's: a client's demand
	// account (with what is held on it) and the loan's principal outstanding.
	LineDemand LineKind = "DEMAND"
	LineLoan   LineKind = "LOAN"
)

// LineStatus is how a side says a line ended.
type LineStatus string

// The line statuses. UNKNOWN is tiyin's for a credit still PROCESSING: it does not know the
// outcome yet. REVERSED is the network's for a debit it took back.
const (
	LineDone     LineStatus = "DONE"
	LineFailed   LineStatus = "FAILED"
	LineUnknown  LineStatus = "UNKNOWN"
	LineReversed LineStatus = "REVERSED"
)

// CreditLineID is the id both sides know a transfer's credit by: its order's idempotency key.
func CreditLineID(transferID uuid.UUID) string { return transferID.String() + ":CREDIT" }

// TransferOfLine is the transfer a credit line's id names, false for any other id.
func TransferOfLine(id string) (uuid.UUID, bool) {
	s, ok := strings.CutSuffix(id, ":CREDIT")
	if !ok {
		return uuid.Nil, false
	}
	t, err := uuid.Parse(s)
	return t, err == nil
}

// StatementLine is one movement as one side recorded it. ID is the id both sides know: the
// credit's idempotency key ("<transactionId>:CREDIT") or the debit's id.
type StatementLine struct {
	ID     string
	Kind   LineKind
	Amount int64
	At     time.Time
	Status LineStatus
}

// BreakKind names how the two sides differ.
type BreakKind string

// The break kinds.
const (
	// BreakMissingInTiyin: the network moved money tiyin has no record of.
	BreakMissingInTiyin BreakKind = "MISSING_IN_TIYIN"
	// BreakMissingAtNetwork: tiyin recorded a movement the network does not list.
	BreakMissingAtNetwork BreakKind = "MISSING_AT_NETWORK"
	// BreakAmountDiffers: both list the movement, with different amounts.
	BreakAmountDiffers BreakKind = "AMOUNT_DIFFERS"
	// BreakStatusDiffers: both list it and disagree on how it ended (tiyin does not know,
	// the network says done; done here, reversed there).
	BreakStatusDiffers BreakKind = "STATUS_DIFFERS"
	// BreakDuplicate: the network lists the movement more than once.
	BreakDuplicate BreakKind = "DUPLICATE"
	// BreakBalanceDiffers: an account's closing balance in tiyin's ledger is not core
	// banking's.
	BreakBalanceDiffers BreakKind = "BALANCE_DIFFERS"
)

// SourceCoreBanking names core banking's closing balances where a run or a break names its
// other side: a network's name, or this.
const SourceCoreBanking = "CORE_BANKING"

// AccountBalance is one account's closing balance of a business day: a client's demand account
// (LineDemand) or the loan drawn on it (LineLoan), named by the demand account's number, the
// one core banking gave (ports.CoreBanking.OpenAccount).
type AccountBalance struct {
	Account string
	Kind    LineKind
	Balance int64
}

// BalanceLineID is the id a closing balance's break keeps: the account and the kind.
func BalanceLineID(account string, kind LineKind) string { return account + ":" + string(kind) }

// ReconcileBalances compares tiyin's closing balances of a day with core banking's, at the
// day's end: an account is compared when core banking lists balances of its kind (a core that
// keeps no loan balances lists none, and tiyin's are not compared); an account one side does
// not list stands at zero there. It returns how many agreed and a break for each that does not.
func ReconcileBalances(ours, theirs []AccountBalance, dayEnd time.Time) (matched int, breaks []Break) {
	kinds := map[LineKind]bool{}
	type pair struct {
		kind         LineKind
		ours, theirs int64
	}
	byID := map[string]*pair{}
	at := func(b AccountBalance) *pair {
		id := BalanceLineID(b.Account, b.Kind)
		if byID[id] == nil {
			byID[id] = &pair{kind: b.Kind}
		}
		return byID[id]
	}
	for _, b := range theirs {
		kinds[b.Kind] = true
		at(b).theirs += b.Balance
	}
	for _, b := range ours {
		if kinds[b.Kind] {
			at(b).ours += b.Balance
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := byID[id]
		if p.ours == p.theirs {
			matched++
			continue
		}
		breaks = append(breaks, Break{Kind: BreakBalanceDiffers, LineID: id,
			Ours:   &StatementLine{ID: id, Kind: p.kind, Amount: p.ours, At: dayEnd, Status: LineDone},
			Theirs: &StatementLine{ID: id, Kind: p.kind, Amount: p.theirs, At: dayEnd, Status: LineDone}})
	}
	return matched, breaks
}

// Break is one difference: tiyin's line and the network's, either absent for a missing one.
type Break struct {
	Kind   BreakKind
	Ours   *StatementLine
	Theirs *StatementLine
	LineID string // the line's id, on whichever side has it
	// Resolved marks a break its run settled: a credit whose outcome tiyin did not know, which
	// the statement told.
	Resolved bool
}

// SettlesUnknown reports whether the break tells the outcome of a credit tiyin does not know:
// tiyin has it UNKNOWN, the network DONE or FAILED. Its transfer is settled as the network says.
func (b Break) SettlesUnknown() (credited, ok bool) {
	if b.Kind != BreakStatusDiffers || b.Ours == nil || b.Theirs == nil || b.Ours.Kind != LineCredit || b.Ours.Status != LineUnknown {
		return false, false
	}
	switch b.Theirs.Status {
	case LineDone:
		return true, true
	case LineFailed:
		return false, true
	}
	return false, false
}

// MoneyAgrees reports whether the break's two sides agree on the money that moved, though they
// differ otherwise: each side's money is its line's amount when it ended DONE, else nothing,
// and tiyin knows its side (a credit still UNKNOWN holds money whose fate is not known). A
// DUPLICATE (the network's extra line moved money), a BALANCE_DIFFERS (two balances that
// differ) and a break of the books' proof (two figures of the books that differ) never agree.
// E.g. a debit the network lists as REVERSED, which tiyin never had, agrees: nothing moved on
// either side. Explaining a break that agrees changes no one's money
// and takes one officer; explaining any other says the books are right as they stand, and
// takes two, as accepting does (docs/reconciliation.md).
func (b Break) MoneyAgrees() bool {
	switch {
	case b.Kind == BreakDuplicate || b.Kind == BreakBalanceDiffers || b.BooksBreak():
		return false
	case b.Ours != nil && b.Ours.Status == LineUnknown:
		return false
	}
	return lineAmount(b.Ours) == lineAmount(b.Theirs)
}

// MatchWindow is how far apart in time two lines of the same kind and amount may be to match
// when their ids do not.
const MatchWindow = 10 * time.Minute

// Reconcile matches tiyin's lines of a day against the network's: by id first, then, for the
// lines left, by kind, amount and time within MatchWindow (nearest first). It returns how many
// lines matched cleanly and every break, in a stable order (by id, then kind). A failed
// movement that the other side does not list is no break: no money moved.
func Reconcile(ours, theirs []StatementLine) (matched int, breaks []Break) {
	byID := map[string][]*StatementLine{}
	for i := range theirs {
		byID[theirs[i].ID] = append(byID[theirs[i].ID], &theirs[i])
	}
	used := map[*StatementLine]bool{}
	var leftOurs []*StatementLine
	for i := range ours {
		o := &ours[i]
		ts := byID[o.ID]
		if len(ts) == 0 {
			leftOurs = append(leftOurs, o)
			continue
		}
		for _, t := range ts {
			used[t] = true
		}
		if len(ts) > 1 {
			breaks = append(breaks, Break{Kind: BreakDuplicate, Ours: o, Theirs: ts[1], LineID: o.ID})
		}
		if b, ok := compareLines(o, ts[0]); ok {
			breaks = append(breaks, b)
		} else if len(ts) == 1 {
			matched++
		}
	}
	var leftTheirs []*StatementLine
	for i := range theirs {
		if !used[&theirs[i]] {
			leftTheirs = append(leftTheirs, &theirs[i])
		}
	}
	// Second pass: the same kind and amount, nearest in time within the window.
	for _, o := range leftOurs {
		var best *StatementLine
		for _, t := range leftTheirs {
			if used[t] || t.Kind != o.Kind || t.Amount != o.Amount || absDuration(t.At.Sub(o.At)) > MatchWindow {
				continue
			}
			if best == nil || absDuration(t.At.Sub(o.At)) < absDuration(best.At.Sub(o.At)) {
				best = t
			}
		}
		switch {
		case best != nil:
			used[best] = true
			if b, ok := compareLines(o, best); ok {
				breaks = append(breaks, b)
			} else {
				matched++
			}
		case o.Status != LineFailed:
			breaks = append(breaks, Break{Kind: BreakMissingAtNetwork, Ours: o, LineID: o.ID})
		}
	}
	for _, t := range leftTheirs {
		if !used[t] && t.Status != LineFailed {
			breaks = append(breaks, Break{Kind: BreakMissingInTiyin, Theirs: t, LineID: t.ID})
		}
	}
	slices.SortStableFunc(breaks, func(a, b Break) int {
		return cmp.Or(cmp.Compare(a.LineID, b.LineID), cmp.Compare(a.Kind, b.Kind))
	})
	return matched, breaks
}

// compareLines is the break between two lines that list the same movement, if they differ.
func compareLines(o, t *StatementLine) (Break, bool) {
	switch {
	case o.Amount != t.Amount:
		return Break{Kind: BreakAmountDiffers, Ours: o, Theirs: t, LineID: o.ID}, true
	case o.Status != t.Status:
		return Break{Kind: BreakStatusDiffers, Ours: o, Theirs: t, LineID: o.ID}, true
	}
	return Break{}, false
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
