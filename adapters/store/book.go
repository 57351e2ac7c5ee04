package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// A loan's book is read with the loan by every schedule, check and repayment, so it is stored
// in a compact text form that decodes without reflection (JSON took 16 % of a repayment
// check's CPU):
//
//	b3;level;penaltyTo;penaltyAccrued;penaltyFrac;penaltyPaid;penaltyLog;item;item;…
//
// where penaltyPaid is followed, once operators waived anything, by ",penaltyWaived,
// interestWaived" (a book stored before waivers existed has none: nothing waived);
// the penalty log is its spans (from,days,daily,dailyFrac) joined by "|", an item is its
// eight fields joined by commas, in the order of bookItemFields (Gone as 0 or 1), and a ninth,
// the interest and service operators waived on it, once they did (a b3 book stored before it
// has none: what was waived counts as paid), and a time is its Unix nanoseconds (empty for the
// zero time).
//
// Books stored before interest was owed once (b2, b1 and JSON) kept each item's interest fixed
// in whole tiyin and the principal it accrued on; they are read by converting the fixed
// interest back to the tiyin-days it was accrued on (to the nearest tiyin-day) and the
// penalty log's spans to their exact daily share. A conversion cannot restore what the old
// rules charged differently; it keeps every amount already posted.
const (
	bookPrefix   = "b3;"
	bookPrefixV2 = "b2;"
	bookPrefixV1 = "b1;"
)

// bookItemFields is the number of stored fields of a domain.BookItem; legacyItemFields of an
// item of a b1 or b2 book.
const (
	bookItemFields   = 8
	legacyItemFields = 12
)

func encodeBook(b *domain.BookState) string {
	buf := make([]byte, 0, 64+len(b.Items)*96)
	buf = append(buf, bookPrefix...)
	buf = strconv.AppendInt(buf, b.Level, 10)
	buf = appendTime(append(buf, ';'), b.PenaltyTo)
	for _, v := range []int64{b.PenaltyAccrued, b.PenaltyFrac, b.PenaltyPaid} {
		buf = strconv.AppendInt(append(buf, ';'), v, 10)
	}
	if b.PenaltyWaived != 0 || b.InterestWaived != 0 {
		buf = strconv.AppendInt(append(buf, ','), b.PenaltyWaived, 10)
		buf = strconv.AppendInt(append(buf, ','), b.InterestWaived, 10)
	}
	buf = append(buf, ';')
	for i, sp := range b.PenaltyLog {
		if i > 0 {
			buf = append(buf, '|')
		}
		buf = appendTime(buf, sp.From)
		for _, v := range []int64{int64(sp.Days), sp.Daily, sp.DailyFrac} {
			buf = strconv.AppendInt(append(buf, ','), v, 10)
		}
	}
	for _, it := range b.Items {
		buf = appendTime(append(buf, ';'), it.PaymentDate)
		for _, v := range []int64{int64(it.PeriodDays), it.Principal, it.PaidPrincipal, it.PaidCharges, it.Held} {
			buf = strconv.AppendInt(append(buf, ','), v, 10)
		}
		buf = appendTime(append(buf, ','), it.AccrualFrom)
		gone := byte('0')
		if it.Gone {
			gone = '1'
		}
		buf = append(buf, ',', gone)
		if it.WaivedCharges != 0 { // a ninth field, only where operators waived interest
			buf = strconv.AppendInt(append(buf, ','), it.WaivedCharges, 10)
		}
	}
	return string(buf)
}

func appendTime(buf []byte, t time.Time) []byte {
	if t.IsZero() {
		return buf
	}
	return strconv.AppendInt(buf, t.UnixNano(), 10)
}

// decodeBook reads a stored book; chargeRate (interest and service, hundredths of a percent a
// year) converts a book stored by an earlier version.
func decodeBook(s string, chargeRate int64) (*domain.BookState, error) {
	rest, ok := strings.CutPrefix(s, bookPrefix)
	if !ok {
		return decodeLegacyBook(s, chargeRate)
	}
	d := bookDecoder{}
	parts := strings.Split(rest, ";")
	const header = 6
	if len(parts) < header {
		return nil, errors.New("book: too few fields")
	}
	b := &domain.BookState{Level: d.int(parts[0]), PenaltyTo: d.time(parts[1]), PenaltyAccrued: d.int(parts[2]),
		PenaltyFrac: d.int(parts[3]), PenaltyLog: make([]domain.PenaltySpan, 0)}
	switch paid := strings.Split(parts[4], ","); len(paid) {
	case 1:
		b.PenaltyPaid = d.int(paid[0])
	case 3:
		b.PenaltyPaid, b.PenaltyWaived, b.InterestWaived = d.int(paid[0]), d.int(paid[1]), d.int(paid[2])
	default:
		return nil, fmt.Errorf("book: the penalty paid has %d fields, want 1 or 3", len(paid))
	}
	if parts[5] != "" {
		for sp := range strings.SplitSeq(parts[5], "|") {
			f := strings.Split(sp, ",")
			if len(f) != 4 {
				return nil, fmt.Errorf("book: a penalty span has %d fields, want 4", len(f))
			}
			b.PenaltyLog = append(b.PenaltyLog, domain.PenaltySpan{From: d.time(f[0]), Days: int(d.int(f[1])),
				Daily: d.int(f[2]), DailyFrac: d.int(f[3])})
		}
	}
	b.Items = make([]domain.BookItem, len(parts)-header)
	for i, p := range parts[header:] {
		f := strings.Split(p, ",")
		if len(f) != bookItemFields && len(f) != bookItemFields+1 {
			return nil, fmt.Errorf("book: item %d has %d fields, want %d or %d", i, len(f), bookItemFields, bookItemFields+1)
		}
		if f[7] != "0" && f[7] != "1" {
			return nil, fmt.Errorf("book: item %d: gone is %q, want 0 or 1", i, f[7])
		}
		b.Items[i] = domain.BookItem{PaymentDate: d.time(f[0]), PeriodDays: int(d.int(f[1])), Principal: d.int(f[2]),
			PaidPrincipal: d.int(f[3]), PaidCharges: d.int(f[4]), Held: d.int(f[5]), AccrualFrom: d.time(f[6]), Gone: f[7] == "1"}
		if len(f) > bookItemFields {
			b.Items[i].WaivedCharges = d.int(f[8])
		}
	}
	return b, d.err
}

// legacyBook is a book as b1, b2 and JSON stored it.
type legacyBook struct {
	Items                       []legacyItem
	Level                       int64
	PenaltyTo                   time.Time
	PenaltyAccrued, PenaltyPaid int64
	PenaltyLog                  []legacySpan
}

type legacyItem struct {
	PaymentDate                       time.Time
	PeriodDays                        int
	Principal, Interest, Service      int64
	Residue                           int64
	PaidPrincipal, PaidCharges        int64
	AccrualFrom                       time.Time
	Base, FixedInterest, FixedService int64
}

type legacySpan struct {
	From  time.Time
	Days  int
	Total int64
}

// decodeLegacyBook reads a book stored by an earlier version and converts it.
func decodeLegacyBook(s string, chargeRate int64) (*domain.BookState, error) {
	old := new(legacyBook)
	header := 5
	rest, ok := strings.CutPrefix(s, bookPrefixV2)
	if !ok {
		if rest, ok = strings.CutPrefix(s, bookPrefixV1); !ok {
			if err := json.Unmarshal([]byte(s), old); err != nil {
				return nil, err
			}
			return old.convert(chargeRate), nil
		}
		header = 4
	}
	d := bookDecoder{}
	parts := strings.Split(rest, ";")
	if len(parts) < header {
		return nil, errors.New("book: too few fields")
	}
	old.Level, old.PenaltyTo, old.PenaltyAccrued, old.PenaltyPaid = d.int(parts[0]), d.time(parts[1]), d.int(parts[2]), d.int(parts[3])
	if header == 5 && parts[4] != "" {
		for sp := range strings.SplitSeq(parts[4], "|") {
			f := strings.Split(sp, ",")
			if len(f) != 3 {
				return nil, fmt.Errorf("book: a penalty span has %d fields, want 3", len(f))
			}
			old.PenaltyLog = append(old.PenaltyLog, legacySpan{d.time(f[0]), int(d.int(f[1])), d.int(f[2])})
		}
	}
	old.Items = make([]legacyItem, len(parts)-header)
	for i, p := range parts[header:] {
		f := strings.Split(p, ",")
		if len(f) != legacyItemFields {
			return nil, fmt.Errorf("book: item %d has %d fields, want %d", i, len(f), legacyItemFields)
		}
		it := &old.Items[i]
		it.PaymentDate, it.PeriodDays = d.time(f[0]), int(d.int(f[1]))
		it.Principal, it.Interest, it.Service, it.Residue = d.int(f[2]), d.int(f[3]), d.int(f[4]), d.int(f[5])
		it.PaidPrincipal, it.PaidCharges, it.AccrualFrom = d.int(f[6]), d.int(f[7]), d.time(f[8])
		it.Base, it.FixedInterest, it.FixedService = d.int(f[9]), d.int(f[10]), d.int(f[11])
	}
	if d.err != nil {
		return nil, d.err
	}
	return old.convert(chargeRate), nil
}

// convert turns an old book into today's: an item's fixed interest and service become the
// tiyin-days they accrued on, and a penalty span's total its exact daily share.
func (old *legacyBook) convert(chargeRate int64) *domain.BookState {
	b := &domain.BookState{Level: old.Level, PenaltyTo: old.PenaltyTo, PenaltyAccrued: old.PenaltyAccrued,
		PenaltyPaid: old.PenaltyPaid, PenaltyLog: make([]domain.PenaltySpan, 0, len(old.PenaltyLog)),
		Items: make([]domain.BookItem, len(old.Items))}
	for _, sp := range old.PenaltyLog {
		if sp.Days > 0 {
			frac := new(big.Int).Mul(big.NewInt(sp.Total%int64(sp.Days)), big.NewInt(domain.ExactDenominator))
			b.PenaltyLog = append(b.PenaltyLog, domain.PenaltySpan{From: sp.From, Days: sp.Days, Daily: sp.Total / int64(sp.Days),
				DailyFrac: frac.Quo(frac, big.NewInt(int64(sp.Days))).Int64()})
		}
	}
	for i, it := range old.Items {
		var held int64
		if chargeRate > 0 {
			// (fixed × 3 650 000 + rate / 2) / rate, in big numbers: the nearest tiyin-days.
			n := new(big.Int).Mul(big.NewInt(it.FixedInterest+it.FixedService), big.NewInt(10000*365))
			n.Add(n, big.NewInt(chargeRate/2))
			held = n.Quo(n, big.NewInt(chargeRate)).Int64()
		}
		b.Items[i] = domain.BookItem{PaymentDate: it.PaymentDate, PeriodDays: it.PeriodDays, Principal: it.Principal,
			PaidPrincipal: it.PaidPrincipal, PaidCharges: it.PaidCharges, Held: held, AccrualFrom: it.AccrualFrom}
	}
	return b
}

// bookDecoder parses numbers, keeping the first error.
type bookDecoder struct{ err error }

func (d *bookDecoder) int(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("book: %w", err)
	}
	return v
}

func (d *bookDecoder) time(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	return time.Unix(0, d.int(s)).UTC()
}
