package console

import (
	"context"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SearchPageSize is a page of a search's hits.
const SearchPageSize = 50

// SearchPage is one page of a search's hits; Next is its last hit when another page follows.
// A PINFL searched for is no hit list but a client: Client is its blind index, the client
// view's reference.
type SearchPage struct {
	Hits   []ports.SearchHit
	Next   *ports.SearchHit
	Client string
}

// SearchHandler finds objects by what an operator knows of them.
type SearchHandler struct {
	BackOffice ports.BackOffice
	Sealer     ports.Sealer
	UoW        ports.UnitOfWork
	Audit      Audit
}

// Handle reads the text as any id (application, external, loan, transaction, card, request),
// a loan's contract number (loanId) or demand account's number,
// a phone number (found by its blind index: phones are stored sealed), or the last four
// digits of a card number, and returns the page of hits after after (nil: the first page).
func (h *SearchHandler) Handle(ctx context.Context, who Actor, text string, after *ports.SearchHit) (SearchPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return SearchPage{}, err
	}
	text = strings.TrimSpace(text)
	q := ports.SearchQuery{Text: text, After: after, Limit: SearchPageSize + 1} // one more tells whether another page follows
	digits := strings.TrimPrefix(strings.NewReplacer(" ", "", "-", "", "(", "", ")", "").Replace(text), "+")
	q.Number = strings.NewReplacer(" ", "", "-", "").Replace(text)
	switch {
	case text == "":
		return SearchPage{}, nil
	case uuid.Validate(text) == nil:
		q.ID = uuid.MustParse(text)
	case len(digits) == 4 && allDigits(digits):
		q.PANLast4 = digits
	case len(digits) == 14 && allDigits(digits):
		// A loan's contract number of 14 digits, or else a PINFL: the client view, by its
		// blind index; the search is audited with the number masked.
		if loans, err := h.BackOffice.Search(ctx, ports.SearchQuery{Text: text, Number: q.Number, Limit: q.Limit}); err != nil || len(loans) > 0 {
			return SearchPage{Hits: loans}, err
		}
		err := h.UoW.Do(ctx, func(ctx context.Context) error {
			return h.Audit.record(ctx, who, "search.pinfl", "pinfl:"+digits[:2]+"••••••••••"+digits[12:], "")
		})
		return SearchPage{Client: hex.EncodeToString(h.Sealer.Blind("pinfl", digits)[0])}, err
	case len(digits) >= 9 && allDigits(digits):
		phone, err := domain.ParsePhone(digits)
		if err != nil && len(digits) == 9 {
			phone, err = domain.ParsePhone("998" + digits)
		}
		if err == nil {
			for _, b := range h.Sealer.Blind("phone", phone.String()) {
				q.PhoneIndexes = append(q.PhoneIndexes, hex.EncodeToString(b))
			}
			// Looking a person up by phone is a read of personal data: audited, with the
			// number masked as the console shows it.
			err := h.UoW.Do(ctx, func(ctx context.Context) error {
				return h.Audit.record(ctx, who, "search.phone", "phone:"+phone.Masked(), "")
			})
			if err != nil {
				return SearchPage{}, err
			}
		}
	}
	hits, err := h.BackOffice.Search(ctx, q)
	if err != nil {
		return SearchPage{}, err
	}
	p := SearchPage{Hits: hits}
	if len(hits) > SearchPageSize {
		p.Hits = hits[:SearchPageSize]
		p.Next = &p.Hits[SearchPageSize-1]
	}
	return p, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
