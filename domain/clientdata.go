package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DateLayout is the wire and storage form of a calendar date.
const DateLayout = "2006-01-02"

// ClientDataInput is clientData as the partner sent it: plain strings, empty meaning absent.
// ParseClientData turns it into a ClientData or says which fields fail.
type ClientDataInput struct {
	PINFL, INN                       string
	LastName, FirstName, MiddleName  string
	BirthDate, Gender                string
	DocumentType, DocumentSeries     string
	DocumentNumber, DocumentIssuedBy string
	DocumentIssued, DocumentExpiry   string
	Region, District, Address        string
	Email, Phone                     string
}

// ClientData is the client's identity as the identity provider (MyID) reported it. It is
// personal data: it is never logged and returned by no endpoint.
type ClientData struct {
	in ClientDataInput
}

// ParseClientData validates every field of in against today's date (Asia/Tashkent) and
// returns the normalised data, or a ValidationError listing every failing field by the JSON
// path below clientData.
func ParseClientData(in ClientDataInput, today time.Time) (ClientData, error) {
	n := normalise(in)
	var fs Fieldset
	if len(n.PINFL) != 14 || !isDigits(n.PINFL) {
		fs.Add("pinfl", "must be 14 digits")
	}
	if n.INN != "" && (len(n.INN) != 9 || !isDigits(n.INN)) {
		fs.Add("inn", "must be 9 digits")
	}
	fs.Check("lastName", checkName(n.LastName, true))
	fs.Check("firstName", checkName(n.FirstName, true))
	fs.Check("middleName", checkName(n.MiddleName, false))
	if birth, err := parseDate(n.BirthDate); err != nil {
		fs.Add("birthDate", err.Error())
	} else if birth.AddDate(18, 0, 0).After(today) {
		fs.Add("birthDate", "client must be at least 18 years old")
	}
	if n.Gender != "" && n.Gender != "MALE" && n.Gender != "FEMALE" {
		fs.Add("gender", "must be one of MALE, FEMALE")
	}
	if n.DocumentType != "PASSPORT" && n.DocumentType != "ID_CARD" {
		fs.Add("document.type", "must be one of PASSPORT, ID_CARD")
	}
	if !isSeries(n.DocumentSeries) {
		fs.Add("document.series", "must be 2 Latin capital letters")
	}
	if len(n.DocumentNumber) != 7 || !isDigits(n.DocumentNumber) {
		fs.Add("document.number", "must be 7 digits")
	}
	fs.Check("document.issuedBy", checkText(n.DocumentIssuedBy, true))
	issued, errIssued := parseDate(n.DocumentIssued)
	if errIssued != nil {
		fs.Add("document.issuedDate", errIssued.Error())
	} else if issued.After(today) {
		fs.Add("document.issuedDate", "must not be in the future")
	}
	if expiry, err := parseDate(n.DocumentExpiry); err != nil {
		fs.Add("document.expiryDate", err.Error())
	} else if expiry.Before(today) {
		fs.Add("document.expiryDate", "document has expired")
	} else if errIssued == nil && !expiry.After(issued) {
		fs.Add("document.expiryDate", "must be after issuedDate")
	}
	fs.Check("address.region", checkText(n.Region, true))
	fs.Check("address.district", checkText(n.District, true))
	fs.Check("address.address", checkText(n.Address, true))
	if n.Email != "" && !isEmail(n.Email) {
		fs.Add("email", "must be an e-mail address")
	}
	if _, err := ParsePhone(n.Phone); err != nil {
		fs.Add("phone", err.Error())
	}
	if err := fs.Err(); err != nil {
		return ClientData{}, err
	}
	return ClientData{in: n}, nil
}

// RestoreClientData rebuilds stored client data. Only repositories may call it: it skips the
// checks of ParseClientData, which the data passed when it was first accepted.
func RestoreClientData(in ClientDataInput) ClientData { return ClientData{in: in} }

// Fields returns the normalised fields, for storage and for the gateways that need them.
func (c ClientData) Fields() ClientDataInput { return c.in }

// PINFL returns the personal identification number.
func (c ClientData) PINFL() string { return c.in.PINFL }

// FullName returns "Last First Middle", as a bank statement shows the client.
func (c ClientData) FullName() string {
	return strings.TrimSpace(strings.Join([]string{c.in.LastName, c.in.FirstName, c.in.MiddleName}, " "))
}

// Diff lists the JSON paths of the fields in which other differs from c. Both are normalised,
// so case of names, surrounding spaces and apostrophe variants do not count as differences.
func (c ClientData) Diff(other ClientData) []string {
	a, b := c.in, other.in
	pairs := []struct {
		path string
		x, y string
	}{
		{"pinfl", a.PINFL, b.PINFL}, {"inn", a.INN, b.INN},
		{"lastName", a.LastName, b.LastName}, {"firstName", a.FirstName, b.FirstName},
		{"middleName", a.MiddleName, b.MiddleName}, {"birthDate", a.BirthDate, b.BirthDate},
		{"gender", a.Gender, b.Gender},
		{"document.type", a.DocumentType, b.DocumentType},
		{"document.series", a.DocumentSeries, b.DocumentSeries},
		{"document.number", a.DocumentNumber, b.DocumentNumber},
		{"document.issuedBy", a.DocumentIssuedBy, b.DocumentIssuedBy},
		{"document.issuedDate", a.DocumentIssued, b.DocumentIssued},
		{"document.expiryDate", a.DocumentExpiry, b.DocumentExpiry},
		{"address.region", a.Region, b.Region}, {"address.district", a.District, b.District},
		{"address.address", a.Address, b.Address},
		{"email", a.Email, b.Email}, {"phone", a.Phone, b.Phone},
	}
	var diff []string
	for _, p := range pairs {
		if p.x != p.y {
			diff = append(diff, p.path)
		}
	}
	return diff
}

var apostrophes = strings.NewReplacer("ʻ", "'", "ʼ", "'", "‘", "'", "’", "'", "`", "'")

func normalise(in ClientDataInput) ClientDataInput {
	name := func(s string) string { return strings.ToUpper(apostrophes.Replace(collapse(s))) }
	return ClientDataInput{
		PINFL: collapse(in.PINFL), INN: collapse(in.INN),
		LastName: name(in.LastName), FirstName: name(in.FirstName), MiddleName: name(in.MiddleName),
		BirthDate: collapse(in.BirthDate), Gender: strings.ToUpper(collapse(in.Gender)),
		DocumentType:   strings.ToUpper(collapse(in.DocumentType)),
		DocumentSeries: collapse(in.DocumentSeries), DocumentNumber: collapse(in.DocumentNumber),
		DocumentIssuedBy: collapse(in.DocumentIssuedBy),
		DocumentIssued:   collapse(in.DocumentIssued), DocumentExpiry: collapse(in.DocumentExpiry),
		Region: collapse(in.Region), District: collapse(in.District), Address: collapse(in.Address),
		Email: strings.ToLower(collapse(in.Email)), Phone: collapse(in.Phone),
	}
}

// collapse trims s and folds runs of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func checkName(s string, required bool) error {
	if s == "" {
		if required {
			return errors.New("must not be empty")
		}
		return nil
	}
	if utf8.RuneCountInString(s) > 100 {
		return errors.New("must be at most 100 characters")
	}
	for _, r := range s {
		letter := unicode.IsLetter(r) && (unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Cyrillic, r))
		if !letter && r != ' ' && r != '-' && r != '\'' {
			return errors.New("must contain only Latin or Cyrillic letters, spaces, hyphens and apostrophes")
		}
	}
	return nil
}

func checkText(s string, required bool) error {
	if s == "" {
		if required {
			return errors.New("must not be empty")
		}
		return nil
	}
	if !utf8.ValidString(s) {
		return errors.New("must be valid UTF-8 text")
	}
	if utf8.RuneCountInString(s) > 255 {
		return errors.New("must be at most 255 characters")
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return errors.New("must not contain control characters")
		}
	}
	return nil
}

func parseDate(s string) (time.Time, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be a date in the form yyyy-MM-dd")
	}
	return t, nil
}

func isSeries(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func isEmail(s string) bool {
	local, host, ok := strings.Cut(s, "@")
	return ok && len(s) <= 254 && local != "" && strings.Contains(host, ".") &&
		!strings.ContainsAny(s, " \t") && !strings.Contains(host, "@") &&
		!strings.HasPrefix(host, ".") && !strings.HasSuffix(host, ".")
}
