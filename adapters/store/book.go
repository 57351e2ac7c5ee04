package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// A loan's book is read with the loan by every schedule, check and repayment, so it is stored
// in a compact text form that decodes without reflection (JSON took 16 % of a repayment
// check's CPU):
//
//	b2;level;penaltyTo;penaltyAccrued;penaltyPaid;penaltyLog;item;item;…
//
// where the penalty log is its spans (from,days,total) joined by "|", an item is its twelve
// fields joined by commas, in the order of bookItemFields, and a time is its Unix nanoseconds
// (empty for the zero time). Books stored by earlier versions, as b1 (without the penalty log)
// or as JSON, are still read.
const (
	bookPrefix   = "b2;"
	bookPrefixV1 = "b1;"
)

// bookItemFields is the number of stored fields of a domain.BookItem.
const bookItemFields = 12

func encodeBook(b *domain.BookState) string {
	buf := make([]byte, 0, 64+len(b.Items)*128)
	buf = append(buf, bookPrefix...)
	buf = strconv.AppendInt(buf, b.Level, 10)
	buf = appendTime(append(buf, ';'), b.PenaltyTo)
	buf = strconv.AppendInt(append(buf, ';'), b.PenaltyAccrued, 10)
	buf = strconv.AppendInt(append(buf, ';'), b.PenaltyPaid, 10)
	buf = append(buf, ';')
	for i, sp := range b.PenaltyLog {
		if i > 0 {
			buf = append(buf, '|')
		}
		buf = appendTime(buf, sp.From)
		buf = strconv.AppendInt(append(buf, ','), int64(sp.Days), 10)
		buf = strconv.AppendInt(append(buf, ','), sp.Total, 10)
	}
	for _, it := range b.Items {
		buf = appendTime(append(buf, ';'), it.PaymentDate)
		for _, v := range []int64{int64(it.PeriodDays), it.Principal, it.Interest, it.Service, it.Residue,
			it.PaidPrincipal, it.PaidCharges} {
			buf = strconv.AppendInt(append(buf, ','), v, 10)
		}
		buf = appendTime(append(buf, ','), it.AccrualFrom)
		for _, v := range []int64{it.Base, it.FixedInterest, it.FixedService} {
			buf = strconv.AppendInt(append(buf, ','), v, 10)
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

func decodeBook(s string) (*domain.BookState, error) {
	b := new(domain.BookState)
	header := 5
	rest, ok := strings.CutPrefix(s, bookPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(s, bookPrefixV1); !ok {
			return b, json.Unmarshal([]byte(s), b)
		}
		header = 4
	}
	d := bookDecoder{}
	parts := strings.Split(rest, ";")
	if len(parts) < header {
		return nil, errors.New("book: too few fields")
	}
	b.Level, b.PenaltyTo, b.PenaltyAccrued, b.PenaltyPaid = d.int(parts[0]), d.time(parts[1]), d.int(parts[2]), d.int(parts[3])
	b.PenaltyLog = make([]domain.PenaltySpan, 0)
	if header == 5 {
		for sp := range strings.SplitSeq(parts[4], "|") {
			if sp == "" && parts[4] == "" {
				break
			}
			f := strings.Split(sp, ",")
			if len(f) != 3 {
				return nil, fmt.Errorf("book: a penalty span has %d fields, want 3", len(f))
			}
			b.PenaltyLog = append(b.PenaltyLog, domain.PenaltySpan{From: d.time(f[0]), Days: int(d.int(f[1])), Total: d.int(f[2])})
		}
	}
	b.Items = make([]domain.BookItem, len(parts)-header)
	for i, p := range parts[header:] {
		f := strings.Split(p, ",")
		if len(f) != bookItemFields {
			return nil, fmt.Errorf("book: item %d has %d fields, want %d", i, len(f), bookItemFields)
		}
		it := &b.Items[i]
		it.PaymentDate, it.PeriodDays = d.time(f[0]), int(d.int(f[1]))
		it.Principal, it.Interest, it.Service, it.Residue = d.int(f[2]), d.int(f[3]), d.int(f[4]), d.int(f[5])
		it.PaidPrincipal, it.PaidCharges, it.AccrualFrom = d.int(f[6]), d.int(f[7]), d.time(f[8])
		it.Base, it.FixedInterest, it.FixedService = d.int(f[9]), d.int(f[10]), d.int(f[11])
	}
	return b, d.err
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
