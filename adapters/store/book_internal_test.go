package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

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
	good := encodeBook(randomBook(rand.New(rand.NewPCG(5, 6)), 2))
	for name, s := range map[string]string{
		"truncated item": good[:len(good)-3] + ",",
		"missing fields": bookPrefix + "1;2",
		"broken span":    bookPrefix + "1;;0;0;0;5,1",
		"bad gone flag":  good[:len(good)-1] + "2",
		"extra field":    good + ",7",
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
