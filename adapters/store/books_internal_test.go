package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// A loan's books go through the store as they were, their items' books in the compact form;
// books stored before they kept items read with none.
func TestBooksRoundTrip(t *testing.T) {
	t.Parallel()
	b := domain.BooksState{Day: time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC), TakenInterest: 110, TakenService: 60,
		TakenPenalty: 7, InterestReceivable: 30, ServiceReceivable: 20, PenaltyReceivable: 4, InterestAdvance: 9,
		ServiceAdvance: 1, Provision: 12, MemoInterest: 5, NonAccrual: true, DaysOverdue: 3, Class: "SUBSTANDARD",
		Items: []domain.ItemBooks{
			{Taken: [2]int64{100, 50}, Receivable: [2]int64{30, 20}, Memo: [2]int64{5}},
			{},
			{Taken: [2]int64{10, 10}, Advance: 10, WaivedAhead: 2},
		}}
	raw, err := encodeBooks(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"Items":"100,50,30,20,5;;10,10,0,0,0,0,10,2"`) {
		t.Fatalf("stored as %s", raw)
	}
	got, err := decodeBooks(raw)
	if err != nil || !reflect.DeepEqual(got, b) {
		t.Fatalf("read back %+v (%v), want %+v", got, err, b)
	}
	// Trailing items all zeros are left out: they read as none, which the books take as zeros.
	b.Items = append(b.Items, domain.ItemBooks{}, domain.ItemBooks{})
	if raw2, _ := encodeBooks(b); raw2 != raw {
		t.Fatalf("trailing zero items stored as %s", raw2)
	}
	b.Items = nil
	old, err := json.Marshal(b) // as stored before the books kept items
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decodeBooks(string(old)); err != nil || got.Items != nil || got.TakenInterest != 110 {
		t.Fatalf("books stored without items read as %+v (%v)", got, err)
	}
	for _, bad := range []string{`{"Items":"1,2,3,4,5,6,7,8,9"}`, `{"Items":"1,x"}`} {
		if _, err := decodeBooks(bad); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}
