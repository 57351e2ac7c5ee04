package oracle_test

import (
	"testing"
	"time"

	"github.com/tiyin/tiyin/test/oracle"
)

// Issue 32's reproductions that need the oracle to state the expected amounts; the others are
// domain tests (domain/interest_once_test.go).

// The penalty is the exact accrual since the item fell overdue, rounded once: payments made
// while it accrues never restart its rounding. Item 1 of 1e9 (74 923 255) falls overdue;
// 0.05 % of it is 37 461.6275 a day. One-tiyin payments every few days pay overdue principal
// and interest in proportion; the penalty the domain reports each day is the oracle's.
func TestPenaltyRoundingNeverRestarts(t *testing.T) {
	t.Parallel()
	loan := domainLoan(oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	o := oracle.New(oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	for d := date("2026-03-01"); d.Before(date("2026-03-28")); d = d.AddDate(0, 0, 1) {
		o.Advance(d)
		if d.Day()%3 == 0 {
			if _, err := pay(loan, d.Add(5*time.Hour), false, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := o.Pay(false, 1); err != nil {
				t.Fatal(err)
			}
		}
		pos, err := loan.PositionAt(d.Add(5 * time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pos.Penalty, o.Position().Penalty; got != want {
			t.Fatalf("%s: penalty %d, the oracle's %d", d.Format(time.DateOnly), got, want)
		}
	}
}

// TestKnownHistoriesAgree walks histories that once differed, found by make oracle, so they
// stay fixed.
func TestKnownHistoriesAgree(t *testing.T) {
	t.Parallel()
	for _, h := range []history{
		// Seed 1, loan 1210: a TERM and an EARLY payment in period 1 left item 1 a tiyin over its
		// charges while E was rounded half up, so once overdue it showed −1 of interest; E is now
		// rounded to keep the item equal to its charges, and nothing is negative.
		{Terms: oracle.Terms{Amount: 3165274993128990, Months: 35, Rate: 327, Service: 145, PenaltyDaily: 10, IssuedOn: date("2025-12-28")},
			Days: 42, Payments: []payment{{Day: 22, Kind: part, Share: 0.027086565349485586},
				{Day: 23, Early: true, Kind: part, Share: 0.18617370037832692}, {Day: 31, Kind: due},
				{Day: 42, Early: true, Kind: part, Share: 0.013629476911776179}}},
		// Seed 1, loan 1295: such a credit on item 3 was once spread oldest first onto item 1,
		// which then owed a tiyin: an EARLY payment made something overdue.
		{Terms: oracle.Terms{Amount: 754484942613, Months: 8, Rate: 1738, Service: 210, PenaltyDaily: 5, IssuedOn: date("2031-03-29")},
			Days: 101, Payments: []payment{{Day: 61, Kind: due}, {Day: 68, Kind: part, Share: 0.03265612034097889},
				{Day: 73, Early: true, Kind: part, Share: 0.029365119970945236}, {Day: 74, Early: true, Kind: part, Share: 0.4178852348272232},
				{Day: 101, Early: true, Kind: part, Share: 0.03990125800401609}}},
		// Seed 1, loan 3033: a tiyin of overdue principal beside a tiyin of credit once made
		// nothing in all.
		{Terms: oracle.Terms{Amount: 27110366573753, Months: 36, Rate: 4740, Service: 272, PenaltyDaily: 5, IssuedOn: date("2028-06-30")},
			Days: 791, Payments: []payment{{Day: 2, Early: true, Kind: part, Share: 0.14252803806661407},
				{Day: 22, Early: true, Kind: part, Share: 0.04779925989709437}, {Day: 731, Kind: due},
				{Day: 732, Early: true, Kind: part, Share: 0.1568496541119231}, {Day: 752, Early: true, Kind: part, Share: 0.3642430885120532},
				{Day: 753, Early: true, Kind: part, Share: 0.11340325570634496}, {Day: 791, Kind: due}}},
		// Loans written off on their issue day, before any close (a history no seed drew, written
		// by hand): the domain once wrote them off on the cash basis (WRITTEN_OFF) and never
		// opened their books, where the oracle keeps books from issue ("the domain's loan has no
		// books after its first close"); the write-off now opens them. A payment before it on the
		// same day, and a recovery after it.
		{Terms: oracle.Terms{Amount: 3352, Months: 11, Rate: 7368, Service: 221, PenaltyDaily: 1, Differentiated: true, IssuedOn: date("2029-02-28")},
			Days: 69, Payments: []payment{{Day: 0, Kind: writeOff}, {Day: 16, Kind: part, Share: 0.13439599277152436, Late: true}}},
		{Terms: oracle.Terms{Amount: 33520000, Months: 11, Rate: 7368, Service: 221, PenaltyDaily: 1, IssuedOn: date("2029-01-31")},
			Days: 69, Payments: []payment{{Day: 0, Kind: part, Share: 0.3}, {Day: 0, Kind: writeOff},
				{Day: 40, Kind: part, Share: 0.25}}},
	} {
		if w := compare(h); w.err != nil || w.payments == 0 {
			t.Errorf("%s: %v (%d payments compared)", h.Terms, w.err, w.payments)
		}
	}
}
