package domain_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
)

func TestReconcileNamesEveryBreakAndNothingElse(t *testing.T) {
	t.Parallel()
	at := time.Date(2027, 3, 1, 10, 0, 0, 0, domain.Tashkent)
	line := func(id string, kind domain.LineKind, amount int64, minutes int, status domain.LineStatus) domain.StatementLine {
		return domain.StatementLine{ID: id, Kind: kind, Amount: amount, At: at.Add(time.Duration(minutes) * time.Minute), Status: status}
	}
	credit := func(id string, amount int64, status domain.LineStatus) domain.StatementLine {
		return line(id, domain.LineCredit, amount, 0, status)
	}
	ok := credit("t1:CREDIT", 500_000, domain.LineDone)
	cases := []struct {
		name        string
		ours, their []domain.StatementLine
		matched     int
		want        []domain.BreakKind
	}{
		{"the same on both sides", []domain.StatementLine{ok}, []domain.StatementLine{ok}, 1, nil},
		{"nothing on either side", nil, nil, 0, nil},
		{"a credit the network lost", []domain.StatementLine{ok}, nil, 0, []domain.BreakKind{domain.BreakMissingAtNetwork}},
		{"a credit tiyin does not know", nil, []domain.StatementLine{ok}, 0, []domain.BreakKind{domain.BreakMissingInTiyin}},
		{"a credit made twice", []domain.StatementLine{ok}, []domain.StatementLine{ok, ok}, 0, []domain.BreakKind{domain.BreakDuplicate}},
		{"an amount that drifted", []domain.StatementLine{ok}, []domain.StatementLine{credit("t1:CREDIT", 500_001, domain.LineDone)}, 0,
			[]domain.BreakKind{domain.BreakAmountDiffers}},
		{"an outcome tiyin does not know, done at the network", []domain.StatementLine{credit("t1:CREDIT", 500_000, domain.LineUnknown)},
			[]domain.StatementLine{ok}, 0, []domain.BreakKind{domain.BreakStatusDiffers}},
		{"a debit the network reversed", []domain.StatementLine{line("D-1", domain.LineDebit, 70_000, 0, domain.LineDone)},
			[]domain.StatementLine{line("D-1", domain.LineDebit, 70_000, 3, domain.LineReversed)}, 0, []domain.BreakKind{domain.BreakStatusDiffers}},
		{"a failed credit the network does not list is no break", []domain.StatementLine{credit("t2:CREDIT", 9, domain.LineFailed)}, nil, 0, nil},
		{"a line whose id the network changed, matched by amount and time", []domain.StatementLine{ok},
			[]domain.StatementLine{line("NET-77", domain.LineCredit, 500_000, 4, domain.LineDone)}, 1, nil},
		{"by amount and time, the nearest; too far is missing", []domain.StatementLine{ok, line("t3:CREDIT", domain.LineCredit, 500_000, 60, domain.LineDone)},
			[]domain.StatementLine{line("NET-1", domain.LineCredit, 500_000, 9, domain.LineDone), line("NET-2", domain.LineCredit, 500_000, 2, domain.LineDone)},
			1, []domain.BreakKind{domain.BreakMissingInTiyin, domain.BreakMissingAtNetwork}},
		{"a debit never matches a credit of the same amount", []domain.StatementLine{ok},
			[]domain.StatementLine{line("NET-3", domain.LineDebit, 500_000, 0, domain.LineDone)}, 0,
			[]domain.BreakKind{domain.BreakMissingInTiyin, domain.BreakMissingAtNetwork}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			matched, breaks := domain.Reconcile(c.ours, c.their)
			var got []domain.BreakKind
			for _, b := range breaks {
				got = append(got, b.Kind)
				if (b.Ours == nil) != (b.Kind == domain.BreakMissingInTiyin) || (b.Theirs == nil) != (b.Kind == domain.BreakMissingAtNetwork) {
					t.Errorf("break %s with ours %v, theirs %v", b.Kind, b.Ours, b.Theirs)
				}
			}
			if matched != c.matched || len(got) != len(c.want) {
				t.Fatalf("matched %d, breaks %v; want %d, %v", matched, got, c.matched, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("breaks %v, want %v", got, c.want)
				}
			}
			// Reconciling again gives the same: a day run twice records each break once.
			again, twice := domain.Reconcile(c.ours, c.their)
			if again != matched || len(twice) != len(breaks) {
				t.Fatalf("a second run: %d matched, %d breaks", again, len(twice))
			}
		})
	}
}

// BenchmarkReconcile100000Lines matches a day of 100 000 lines on each side, one in a hundred
// of them a break (docs/reconciliation.md quotes it).
func BenchmarkReconcile100000Lines(b *testing.B) {
	at := time.Date(2027, 3, 1, 10, 0, 0, 0, domain.Tashkent)
	ours := make([]domain.StatementLine, 100_000)
	theirs := make([]domain.StatementLine, 100_000)
	for i := range ours {
		ours[i] = domain.StatementLine{ID: fmt.Sprintf("%08d:CREDIT", i), Kind: domain.LineCredit, Amount: int64(1000 + i%5000),
			At: at.Add(time.Duration(i) * 500 * time.Millisecond), Status: domain.LineDone}
		theirs[i] = ours[i]
		switch i % 100 {
		case 1:
			theirs[i].Amount++
		case 2:
			theirs[i].ID = fmt.Sprintf("NET-%d", i) // matched by amount and time
		case 3:
			theirs[i].Status = domain.LineReversed
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		matched, breaks := domain.Reconcile(ours, theirs)
		if matched != 98_000 || len(breaks) != 2_000 {
			b.Fatalf("matched %d, %d breaks", matched, len(breaks))
		}
	}
}
