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
		got, err := decodeBook(encodeBook(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d items: got %+v, %v\nwant %+v", n, got, err, want)
		}
	}
	zero := &domain.BookState{Items: []domain.BookItem{{Base: 1}}}
	if got, err := decodeBook(encodeBook(zero)); err != nil || !got.PenaltyTo.IsZero() || !got.Items[0].AccrualFrom.IsZero() {
		t.Fatalf("zero times: %+v, %v", got, err)
	}
}

func TestBookStoredAsV1IsStillRead(t *testing.T) {
	want := randomBook(rand.New(rand.NewPCG(11, 12)), 3)
	want.PenaltyLog = []domain.PenaltySpan{} // v1 kept none
	v2 := encodeBook(want)
	head := strings.SplitN(strings.TrimPrefix(v2, bookPrefix), ";", 6)
	v1 := bookPrefixV1 + strings.Join(append(head[:4:4], head[5]), ";")
	got, err := decodeBook(v1)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
	}
}

func TestBookStoredAsJSONIsStillRead(t *testing.T) {
	want := randomBook(rand.New(rand.NewPCG(3, 4)), 6)
	old, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeBook(string(old))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestDamagedBookIsAnError(t *testing.T) {
	good := encodeBook(randomBook(rand.New(rand.NewPCG(5, 6)), 2))
	for name, s := range map[string]string{
		"truncated item": good[:len(good)-3] + ",",
		"missing fields": bookPrefix + "1;2",
		"broken span":    bookPrefix + "1;;0;0;5,1",
		"extra field":    good + ",7",
		"not a number":   strings.Replace(good, ";", ";x", 1),
		"not JSON":       "{",
	} {
		if _, err := decodeBook(s); err == nil {
			t.Errorf("%s: %q decoded", name, s)
		}
	}
}

func FuzzDecodeBook(f *testing.F) {
	f.Add(encodeBook(randomBook(rand.New(rand.NewPCG(7, 8)), 3)))
	f.Add(bookPrefix + "0;;0;0;")
	f.Add(bookPrefixV1 + "0;;0;0")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := decodeBook(s)
		if err == nil && (strings.HasPrefix(s, bookPrefix) || strings.HasPrefix(s, bookPrefixV1)) {
			if again, err := decodeBook(encodeBook(b)); err != nil || !reflect.DeepEqual(again, b) {
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
			if _, err := decodeBook(compact); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeBook(string(old)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
