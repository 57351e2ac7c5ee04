package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"money":  money,
	"when":   when,
	"link":   link,
	"listOf": listOf,
	"add":    func(a, b int64) int64 { return a + b },
	"bp":     func(v int64) string { return fmt.Sprintf("%d.%02d %%", v/100, v%100) },
	"mask":   mask,
	"status": statusClass,
	"object": objectName,
	"allows": func(s *appconsole.Session, role string) bool {
		return s != nil && s.Operator.Role.Allows(domain.Role(role))
	},
	"isNil": func(id uuid.UUID) bool { return id == uuid.Nil },
	"list":  func(xs ...string) []string { return xs },
	"proposals": func(list []*domain.Proposal, s *appconsole.Session, csrf, back string) proposalsView {
		return proposalsView{List: list, Session: s, CSRF: csrf, Back: back}
	},
	// proposalsBy is proposals with the makers' names and the breaks the break proposals cover.
	"proposalsBy": func(list []*domain.Proposal, makers map[uuid.UUID]string, breaks map[uuid.UUID]ports.BreakRecord,
		s *appconsole.Session, csrf, back string) proposalsView {
		return proposalsView{List: list, Makers: makers, Breaks: breaks, Session: s, CSRF: csrf, Back: back}
	},
	"breaksLink": breaksLink,
}

// objectNames are the names the dashboard and search show for the kinds of object (the store
// speaks of them by identifiers such as card_order).
var objectNames = map[string]string{
	"application": msg("Application"), "loan": msg("Loan"), "transfer": msg("Transfer"), "card_order": msg("Card order"),
	"card": msg("Card"), "repayment": msg("Repayment request"), "request": msg("Request"),
	// Proposals, by kind.
	"MANUAL_REPAYMENT": msg("Manual repayment"), "WAIVE_PENALTY": msg("Penalty waiver"), "WAIVE_INTEREST": msg("Interest waiver"),
	"WRITE_OFF": msg("Write-off"), "EXTEND_TERM": msg("Longer term"), "PAYMENT_HOLIDAY": msg("Payment holiday"),
	"RESTRUCTURE_ARREARS": msg("Longer term, arrears capitalised"),
	"RESOLVE_APPLICATION": msg("Application's outcome"), "RESOLVE_TRANSFER": msg("Transfer's outcome"),
	"ACCEPT_BREAK": msg("Their side of a break"), "EXPLAIN_BREAK": msg("A break explained"), "REOPEN_BREAK": msg("A break reopened"),
}

// objectName is the message of a kind of object or proposal; the kind itself when there is none.
func objectName(kind any) string {
	k := fmt.Sprint(kind)
	if n, ok := objectNames[k]; ok {
		return n
	}
	return k
}

// proposalsView is the proposals table's data: it is shown on several pages. Makers and
// Breaks are there where the page read them (the dashboard's).
type proposalsView struct {
	List    []*domain.Proposal
	Makers  map[uuid.UUID]string
	Breaks  map[uuid.UUID]ports.BreakRecord
	Session *appconsole.Session
	CSRF    string
	Back    string
}

// BreakSummary is what a break proposal is about, for its line in the proposals table: the
// breaks' kinds, the first day, and the money in question (each break's difference between
// the two sides, added up).
type BreakSummary struct {
	Kinds  string
	Day    time.Time
	Amount int64
	N      int
}

// Summary sums up the breaks of break proposal p, as far as the page read them.
func (v proposalsView) Summary(p *domain.Proposal) BreakSummary {
	var out BreakSummary
	seen := map[domain.BreakKind]bool{}
	var kinds []string
	for _, id := range p.Covers() {
		b, ok := v.Breaks[id]
		if !ok {
			continue
		}
		out.N++
		if !seen[b.Kind] {
			seen[b.Kind] = true
			kinds = append(kinds, string(b.Kind))
		}
		if out.Day.IsZero() || b.Day.Before(out.Day) {
			out.Day = b.Day
		}
		var ours, theirs int64
		if b.Ours != nil {
			ours = b.Ours.Amount
		}
		if b.Theirs != nil {
			theirs = b.Theirs.Amount
		}
		if b.Kind == domain.BreakDuplicate {
			ours = 0 // the network's second line is the money in question
		}
		out.Amount += max(ours-theirs, theirs-ours)
	}
	out.Kinds = strings.Join(kinds, ", ")
	return out
}

// breaksLink is the reconciliation page listing a proposal's breaks, whatever their status.
func breaksLink(p *domain.Proposal) string {
	v := url.Values{"status": {"ALL"}}
	for _, id := range p.Covers() {
		v.Add("break", id.String())
	}
	return "/console/reconciliation?" + v.Encode()
}

// money shows tiyin as sums: 1 234 567.89.
func money(tiyin int64) string {
	sign := ""
	if tiyin < 0 {
		sign, tiyin = "-", -tiyin
	}
	whole := fmt.Sprint(tiyin / 100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteRune(' ')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s%s.%02d", sign, b.String(), tiyin%100)
}

// when shows a moment in Tashkent time, to the second; nothing for the zero time.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(domain.Tashkent).Format("2006-01-02 15:04:05 -07") // "+05": Tashkent time, labelled
}

// age is how long d is, roughly: a number and the message that shows it.
func age(d time.Duration) (int, string) {
	switch {
	case d < time.Minute:
		return 0, msg("just now")
	case d < time.Hour:
		return int(d.Minutes()), msg("{A} min")
	case d < 48*time.Hour:
		return int(d.Hours()), msg("{A} h")
	}
	return int(d.Hours() / 24), msg("{A} days")
}

// link is the page of an object of a kind.
// listOf is the link to the list of a kind's objects in a status, empty where the console has
// no list of that kind.
func listOf(kind, status string) string {
	l, ok := lists[kind]
	if !ok {
		return ""
	}
	return "/console/" + l.Path + "?status=" + url.QueryEscape(status)
}

func link(kind string, id uuid.UUID) string {
	switch kind {
	case "application", "unknown_application":
		return "/console/applications/" + id.String()
	case "loan":
		return "/console/loans/" + id.String()
	case "transfer":
		return "/console/transfers/" + id.String()
	case "repayment":
		return "/console/repayments/" + id.String()
	case "card":
		return "/console/cards/" + id.String()
	case "card_order":
		return "/console/card-orders/" + id.String()
	}
	return "/console/"
}

// mask hides all but the first and last few characters of personal data.
func mask(s string) string {
	r := []rune(s)
	switch {
	case len(r) == 0:
		return ""
	case len(r) <= 4:
		return strings.Repeat("•", len(r))
	case len(r) <= 8:
		return string(r[:1]) + strings.Repeat("•", len(r)-2) + string(r[len(r)-1:])
	}
	return string(r[:3]) + strings.Repeat("•", len(r)-5) + string(r[len(r)-2:])
}

// statusClass colours a status: good, bad, wait or none.
func statusClass(s string) string {
	switch s {
	case "COMPLETED", "SUCCESS", "ACTIVE", "APPROVED", "CLOSED":
		return "good"
	case "FAILED", "REJECTED", "EXPIRED", "CANCELED", "BLOCKED":
		return "bad"
	case "IN_PROGRESS", "PROCESSING", "PENDING", "NEW", "OPEN", "UNVERIFIED":
		return "wait"
	}
	return ""
}

var titles = map[string]string{"transfer": msg("Transfer"), "repayment": msg("Repayment request"), "card_order": msg("Card order"),
	"card": msg("Card")}

// objectView is a transfer's, repayment request's, card order's or card's page.
type objectView struct {
	Kind  string
	ID    uuid.UUID
	Page  appconsole.ObjectPage
	Facts []fact
}

// fact is one line of an object's page; Link, when set, is the page of what it names.
type fact struct {
	Name, Value, Link string
}

// facts lists what an operator needs to know of an object, personal data masked.
func facts(p appconsole.ObjectPage) []fact {
	var f []fact
	add := func(name, value string) { f = append(f, fact{Name: name, Value: value}) }
	addLink := func(name string, kind string, id uuid.UUID) {
		if id != uuid.Nil {
			f = append(f, fact{Name: name, Value: id.String(), Link: link(kind, id)})
		}
	}
	add(msg("Partner"), p.PartnerName)
	switch {
	case p.Transfer != nil:
		s := p.Transfer.State()
		add(msg("Status"), p.Transfer.StatusAt(p.Now).String())
		add(msg("Message"), p.Transfer.MessageAt(p.Now))
		add(msg("Amount"), money(s.Amount.Tiyin()))
		add(msg("Card"), s.MaskedPAN+" · "+s.Network.String())
		add(msg("Card holder"), mask(s.CardHolder))
		add(msg("External id"), s.ExternalID.String())
		addLink(msg("Application"), "application", s.ApplicationID)
		addLink(msg("Loan"), "loan", s.LoanID)
		add(msg("Created"), when(s.CreatedAt))
		add(msg("Last changed"), when(s.UpdatedAt))
		add(msg("Finished"), when(s.FinishedAt))
	case p.Repayment != nil:
		s := p.Repayment.State()
		addLink(msg("Loan"), "loan", s.LoanID)
		add(msg("Contract"), s.ContractNumber)
		add(msg("Quoted debt"), money(s.Quote.Payoff()))
		add(msg("Demand account"), money(s.AccountBalance))
		add(msg("Checked"), when(s.CheckedAt))
		add(msg("Expires"), when(s.ExpireAt))
		if pay := s.Payment; pay != nil {
			add(msg("Paid"), money(pay.Amount)+" · "+pay.Type.String()+" · "+pay.Network.String())
			add(msg("Paid at"), when(pay.At))
			add(msg("Allocated"), fmt.Sprintf("principal %s, interest %s, penalty %s", money(pay.Principal), money(pay.Interest), money(pay.Penalty)))
			add(msg("Debit id"), pay.DebitID)
		} else {
			add(msg("Paid"), "not paid")
		}
	case p.CardOrder != nil:
		s := p.CardOrder.State()
		add(msg("Status"), s.Status.String())
		add(msg("Order description"), s.Description)
		add(msg("Phone"), s.Phone.Masked())
		add(msg("External id"), s.ExternalID)
		add(msg("Issuer reference"), s.IssuerRef)
		addLink(msg("Card"), "card", s.CardID)
		add(msg("Attempts"), fmt.Sprint(s.Attempts))
		add(msg("Outcome unknown since"), when(s.UnknownSince))
		add(msg("Next run"), when(s.NextRunAt))
		add(msg("Created"), when(s.CreatedAt))
	case p.Card != nil:
		s := p.Card.State()
		add(msg("Status"), s.Status.String())
		add(msg("Reason"), s.Reason)
		add(msg("Card"), s.MaskedPAN+" · "+s.Network.String())
		add(msg("Origin"), s.Origin.String())
		add(msg("Phone"), s.Phone.Masked())
		add(msg("Created"), when(s.CreatedAt))
		add(msg("Last changed"), when(s.UpdatedAt))
	}
	return f
}
