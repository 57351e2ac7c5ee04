package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// randomBook fills every field of a book through reflection, so a field added to
// domain.BookItem or domain.BookState that the codec does not store fails the round trip.
func randomBook(r *rand.Rand, items int) *domain.BookState {
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				v.Set(reflect.ValueOf(time.Unix(0, r.Int64N(4e18)).UTC()))
				return
			}
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Int, reflect.Int64:
			v.SetInt(r.Int64N(1<<40) - 1<<39)
		case reflect.Bool:
			v.SetBool(r.IntN(2) == 1)
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), items, items))
			for i := range items {
				fill(v.Index(i))
			}
		default:
			panic("randomBook: no filler for " + v.Type().String())
		}
	}
	b := new(domain.BookState)
	fill(reflect.ValueOf(b).Elem())
	return b
}

func TestBookRoundTripKeepsEveryField(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 12, 36} {
		want := randomBook(r, n)
		got, err := decodeBook(encodeBook(want), 2800)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d items: got %+v, %v\nwant %+v", n, got, err, want)
		}
	}
	zero := &domain.BookState{Items: []domain.BookItem{{Held: 1}}}
	if got, err := decodeBook(encodeBook(zero), 2800); err != nil || !got.PenaltyTo.IsZero() || !got.Items[0].AccrualFrom.IsZero() {
		t.Fatalf("zero times: %+v, %v", got, err)
	}
}

// legacyV2 is a b2 book: 1e9 for two months at 28 %, an EARLY payment fixed 11 506 849 of
// item 1's interest (15 days on 1e9) and left half a day's penalty over 3 days in its log.
const legacyV2 = "b2;500000000;1772236800000000000;150;0;1772236800000000000,3,150" +
	";1772236800000000000,28,500000000,21479452,0,500000000,500000000,11506849,1771113600000000000,400000000,11506849,0" +
	";1774915200000000000,31,500000000,11890411,0,0,0,0,1772236800000000000,500000000,0,0"

func TestBooksStoredByEarlierVersionsAreConverted(t *testing.T) {
	v2, err := decodeBook(legacyV2, 2800)
	if err != nil {
		t.Fatal(err)
	}
	// 11 506 849 tiyin at 28 % a year were accrued on 14 999 999 589 tiyin-days (1e9 for 15
	// days, to the nearest tiyin-day); the log's 150 tiyin over 3 days is 50 a day.
	it := v2.Items[0]
	if it.Held != 14_999_999_589 || it.Principal != 500_000_000 || it.PaidPrincipal != 500_000_000 || it.PaidCharges != 11_506_849 ||
		it.Gone || v2.Level != 500_000_000 || v2.PenaltyAccrued != 150 || v2.PenaltyFrac != 0 {
		t.Fatalf("converted %+v", v2)
	}
	if sp := v2.PenaltyLog; len(sp) != 1 || sp[0].Days != 3 || sp[0].Daily != 50 || sp[0].DailyFrac != 0 {
		t.Fatalf("penalty log %+v", sp)
	}
	head := strings.SplitN(strings.TrimPrefix(legacyV2, bookPrefixV2), ";", 6)
	v1, err := decodeBook(bookPrefixV1+strings.Join(append(head[:4:4], head[5]), ";"), 2800)
	if err != nil || v1.Items[0] != it || len(v1.PenaltyLog) != 0 {
		t.Fatalf("b1: %+v, %v", v1, err)
	}
	js, err := json.Marshal(legacyBook{Items: []legacyItem{{PaymentDate: it.PaymentDate, PeriodDays: 28, Principal: 500_000_000,
		PaidPrincipal: 500_000_000, PaidCharges: 11_506_849, AccrualFrom: it.AccrualFrom, FixedInterest: 11_506_849}}})
	if err != nil {
		t.Fatal(err)
	}
	if fromJSON, err := decodeBook(string(js), 2800); err != nil || fromJSON.Items[0] != it {
		t.Fatalf("JSON: %+v, %v", fromJSON, err)
	}
}

func TestDamagedBookIsAnError(t *testing.T) {
	b := randomBook(rand.New(rand.NewPCG(5, 6)), 2)
	waived := encodeBook(b)
	for i := range b.Items {
		b.Items[i].WaivedCharges = 0 // stored as eight fields: the gone flag last
	}
	good := encodeBook(b)
	for name, s := range map[string]string{
		"a tenth field":  waived + ",7",
		"truncated item": good[:len(good)-3] + ",",
		"missing fields": bookPrefix + "1;2",
		"broken span":    bookPrefix + "1;;0;0;0;5,1",
		"bad gone flag":  good[:len(good)-1] + "2",
		"not a number":   strings.Replace(good, ";", ";x", 1),
		"not JSON":       "{",
	} {
		if _, err := decodeBook(s, 2800); err == nil {
			t.Errorf("%s: %q decoded", name, s)
		}
	}
}

func FuzzDecodeBook(f *testing.F) {
	f.Add(encodeBook(randomBook(rand.New(rand.NewPCG(7, 8)), 3)))
	f.Add(bookPrefix + "0;;0;0;0;")
	f.Add(legacyV2)
	f.Add(bookPrefixV1 + "0;;0;0")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := decodeBook(s, 2800)
		if err == nil && strings.HasPrefix(s, bookPrefix) {
			if again, err := decodeBook(encodeBook(b), 2800); err != nil || !reflect.DeepEqual(again, b) {
				t.Fatalf("re-encoded %q: %+v, %v", s, again, err)
			}
		}
	})
}

func BenchmarkDecodeBook(b *testing.B) {
	book := randomBook(rand.New(rand.NewPCG(9, 10)), 12)
	compact := encodeBook(book)
	old, _ := json.Marshal(book)
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeBook(compact, 2800); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeBook(string(old), 2800); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// oldEarly is a b3 book stored before EARLY skipped step (3) (2026-11-26): 10 000 000 for three
// months at 28 %, issued 31 January 2026, and an EARLY 1 000 000 on 10 February that put its
// 923 288 on item 1's principal and left items 2 and 3 at the old instalment (3 324 358 and
// 3 406 025 of principal).
const oldEarly = "b3;3484412;1770681600000000000;0;0;0;" +
	";1772236800000000000,28,3269617,923288,76712,100000000,1770681600000000000,0" +
	";1774915200000000000,31,3324358,0,0,0,1772236800000000000,0" +
	";1777507200000000000,30,3406025,0,0,0,1774915200000000000,0"

// A loan laid out by the old EARLY rule keeps its history, and its next payment follows the new
// rule: item 1 keeps what was posted, and an EARLY payment in period 2 lays items 2 and 3 out
// again as equal, smaller instalments (2 970 998 and, the last, 2 970 996).
func TestABookLaidOutByTheOldEarlyRuleIsPaidUnderTheNewOne(t *testing.T) {
	book, err := decodeBook(oldEarly, 2800)
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := domain.ParsePercent("28")
	penalty, _ := domain.ParsePercent("0.05")
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 10_000_000, MonthPeriod: 3, Rate: rate, PenaltyDaily: penalty,
		ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1", Repayments: 1, Book: book,
		IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
	read, err := loan.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	if read[0].Principal != 3_269_617 || read[1].Principal != 3_324_358 || read[2].Principal != 3_406_025 {
		t.Fatalf("the stored schedule reads %+v", read)
	}
	// Item 1 paid on its date, then EARLY 1 000 000 on 10 March.
	pay := func(at time.Time, typ domain.PaymentType, amount int64) domain.Payment {
		t.Helper()
		r, err := domain.NewRepayment(uuid.New(), loan, 0, at)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Pay(loan, domain.Payment{Type: typ, Amount: amount, DebitID: "D", Network: domain.NetworkUzcard,
			TransactionID: uuid.New(), At: at}); err != nil {
			t.Fatal(err)
		}
		return *r.Payment()
	}
	due := time.Date(2026, 2, 28, 10, 0, 0, 0, domain.Tashkent)
	items, _ := loan.ItemsAt(due)
	pay(due, domain.PaymentTerm, items[0].OutstandingPrincipal()+items[0].OutstandingCharges())
	march := time.Date(2026, 3, 10, 10, 0, 0, 0, domain.Tashkent)
	before, _ := loan.ItemsAt(march)
	p := pay(march, domain.PaymentEarly, 1_000_000)
	if p.Penalty != 0 || p.Principal+p.Interest != 1_000_000 || p.Interest <= 0 {
		t.Fatalf("EARLY applied %+v", p)
	}
	after, _ := loan.ItemsAt(march)
	if after[0].PaidPrincipal != 3_269_617 || after[0].Principal != 3_269_617 {
		t.Fatalf("item 1's history changed: %+v", after[0])
	}
	asks := func(it domain.ItemStanding) int64 { return it.OutstandingPrincipal() + it.OutstandingCharges() }
	if asks(after[2]) > asks(after[1]) || asks(after[1]) >= asks(before[1]) ||
		asks(after[2]) >= asks(before[2]) {
		t.Fatalf("items 2 and 3 ask %d and %d (before: %d and %d), want an annuity (the last not larger) and each smaller", asks(after[1]), asks(after[2]),
			asks(before[1]), asks(before[2]))
	}
	if pos, _ := loan.PositionAt(march); pos.NotDuePrincipal != 10_000_000-3_269_617-p.Principal || pos.Penalty != 0 {
		t.Fatalf("leaves %+v", pos)
	}
}

// oldCredit is a b3 book stored before E was rounded to keep each item equal to its charges:
// 1 808 019 for five months at 14 % and 19 % of service, issued 10 September 2027, a TERM
// 87 737 on 28 September and an EARLY 52 603 the next day left item 1 keeping a tiyin more
// than its interest and service. Once overdue, check showed overdueInterestAmount −1.
const oldCredit = "b3;392020;1822176000000000000;0;0;0;" +
	";1823126400000000000,30,343413,92253,48087,34313239,1822176000000000000,0" +
	";1825804800000000000,31,350971,0,0,0,1823126400000000000,0" +
	";1828396800000000000,30,361815,0,0,0,1825804800000000000,0" +
	";1831075200000000000,31,370949,0,0,0,1828396800000000000,0" +
	";1833753600000000000,31,380871,0,0,0,1831075200000000000,0"

// The credit such a book keeps is shown off the principal (no debt part below zero, the payoff
// unchanged: 1 464 606 + 251 160 − 1 + 1 324 + 126), and the next payment's step (1) takes it (a
// TERM 300 000 pays item 1, then item 2's interest and part of its principal: the penalty, (4),
// waits).
func TestAnOldBooksCreditIsNeverShownBelowZero(t *testing.T) {
	book, err := decodeBook(oldCredit, 3300)
	if err != nil {
		t.Fatal(err)
	}
	pct := func(s string) domain.Percent { p, _ := domain.ParsePercent(s); return p }
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_808_019, MonthPeriod: 5, Rate: pct("14"), ServiceRate: pct("19"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1", Repayments: 2, Book: book,
		IssuedAt: time.Date(2027, 9, 10, 12, 0, 0, 0, domain.Tashkent)})
	when := time.Date(2027, 10, 11, 10, 0, 0, 0, domain.Tashkent)
	pos, err := loan.PositionAt(when)
	want := domain.Position{NotDuePrincipal: 1_464_606, OverduePrincipal: 251_159, TermInterest: 1_324, Penalty: 126}
	if err != nil || pos != want {
		t.Fatalf("position %+v (%v), want %+v", pos, err, want)
	}
	r, err := domain.NewRepayment(uuid.New(), loan, 0, when)
	if err != nil {
		t.Fatal(err)
	}
	posting, err := r.Pay(loan, domain.Payment{Type: domain.PaymentTerm, Amount: 300_000, DebitID: "D", Network: domain.NetworkUzcard,
		TransactionID: uuid.New(), At: when})
	if err != nil {
		t.Fatal(err)
	}
	var debits, credits int64
	for _, e := range posting.Entries {
		debits, credits = debits+e.Debit, credits+e.Credit
	}
	p := r.Payment()
	if debits != credits || p.Principal+p.Interest+p.Penalty != 300_000 {
		t.Fatalf("the payment %+v posts %+v", p, posting.Entries)
	}
	after, _ := loan.PositionAt(when)
	if after.NotDuePrincipal < 0 || after.OverduePrincipal != 0 || after.OverdueInterest != 0 || after.TermInterest < 0 || after.Penalty != 126 ||
		after.Payoff() != pos.Payoff()-300_000 {
		t.Fatalf("after paying 300 000 of %d: %+v", pos.Payoff(), after)
	}
}
