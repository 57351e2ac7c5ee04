package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tiyin/tiyin/domain"
)

func TestParsePhone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"998901234567", true},
		{"99890123456", false},   // 11 digits
		{"9989012345678", false}, // 13 digits
		{"+99890123456", false},  // plus sign
		{"997901234567", false},  // not 998
		{"998 90123456", false},  // space
		{"", false},
	}
	for _, tt := range tests {
		_, err := domain.ParsePhone(tt.in)
		if tt.ok != (err == nil) {
			t.Errorf("ParsePhone(%q): ok=%v err=%v", tt.in, tt.ok, err)
		}
	}
}

func TestParsePercent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"28", 2800, true}, {"28.0", 2800, true}, {"28.5", 2850, true}, {"0", 0, true},
		{"99.99", 9999, true}, {"28.050", 2805, true}, {"0.01", 1, true},
		{"100", 0, false}, {"99.999", 0, false}, {"-1", 0, false}, {"1e1", 0, false},
		{"28.", 0, false}, {".5", 0, false}, {"", 0, false}, {"28.123", 0, false},
	}
	for _, tt := range tests {
		p, err := domain.ParsePercent(tt.in)
		if tt.ok != (err == nil) || (tt.ok && p.Hundredths() != tt.want) {
			t.Errorf("ParsePercent(%q) = %d, %v; want %d ok=%v", tt.in, p.Hundredths(), err, tt.want, tt.ok)
		}
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for _, v := range []int64{0, -1} {
		if _, err := domain.ParseAmount(v); err == nil {
			t.Errorf("ParseAmount(%d) accepted", v)
		}
	}
	if a, err := domain.ParseAmount(1); err != nil || a.Tiyin() != 1 {
		t.Errorf("ParseAmount(1) = %d, %v", a, err)
	}
}

func TestParseClientDataListsEveryFailingField(t *testing.T) {
	t.Parallel()
	good := validClientData(t).Fields()
	tests := []struct {
		name   string
		mutate func(*domain.ClientDataInput)
		want   string
	}{
		{"bad pinfl", func(c *domain.ClientDataInput) { c.PINFL = "123" }, "pinfl: must be 14 digits"},
		{"under 18", func(c *domain.ClientDataInput) { c.BirthDate = "2010-01-01" }, "birthDate: client must be at least 18 years old"},
		{"expired document", func(c *domain.ClientDataInput) { c.DocumentExpiry = "2025-01-01" }, "document.expiryDate: document has expired"},
		{"bad series", func(c *domain.ClientDataInput) { c.DocumentSeries = "aa" }, "document.series: must be 2 Latin capital letters"},
		{"digits in name", func(c *domain.ClientDataInput) { c.FirstName = "Aziz2" }, "firstName: must contain only Latin or Cyrillic letters, spaces, hyphens and apostrophes"},
		{"missing last name", func(c *domain.ClientDataInput) { c.LastName = " " }, "lastName: must not be empty"},
		{"bad date", func(c *domain.ClientDataInput) { c.BirthDate = "17.05.1990" }, "birthDate: must be a date in the form yyyy-MM-dd"},
		{"bad phone", func(c *domain.ClientDataInput) { c.Phone = "+998901234567" }, "phone: must be 12 digits starting with 998"},
		{"bad email", func(c *domain.ClientDataInput) { c.Email = "a@b" }, "email: must be an e-mail address"},
		{"two fields", func(c *domain.ClientDataInput) { c.PINFL, c.INN = "", "12" }, "pinfl: must be 14 digits; inn: must be 9 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := good
			tt.mutate(&in)
			_, err := domain.ParseClientData(in, domain.BusinessDate(t0))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseClientDataAcceptsUzbekNames(t *testing.T) {
	t.Parallel()
	in := validClientData(t).Fields()
	in.LastName, in.FirstName, in.MiddleName = "Oʻrinboyev", "Ғайрат", "Sa'dulla o‘g‘li"
	if _, err := domain.ParseClientData(in, domain.BusinessDate(t0)); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseClientData(f *testing.F) {
	f.Add("12345678901234", "Karimov", "1990-05-17", "AA", "998901234567")
	f.Fuzz(func(t *testing.T, pinfl, name, birth, series, phone string) {
		in := domain.ClientDataInput{PINFL: pinfl, LastName: name, FirstName: name, BirthDate: birth,
			DocumentType: "PASSPORT", DocumentSeries: series, DocumentNumber: "1234567", DocumentIssuedBy: "x",
			DocumentIssued: "2020-01-01", DocumentExpiry: "2030-01-01", Region: "r", District: "d", Address: "a", Phone: phone}
		cd, err := domain.ParseClientData(in, domain.BusinessDate(t0))
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if !utf8.ValidString(cd.FullName()) || len(cd.PINFL()) != 14 {
			t.Fatalf("accepted invalid data: %+v", cd.Fields())
		}
	})
}

func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"28", "99.99", "0.5", "1e2", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePercent(s)
		if err == nil && (p.Hundredths() < 0 || p.Hundredths() > domain.MaxPercent) {
			t.Fatalf("%q parsed out of range: %d", s, p.Hundredths())
		}
	})
}

func FuzzParsePhone(f *testing.F) {
	f.Add("998901234567")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePhone(s)
		if err == nil && (len(p.String()) != 12 || !strings.HasPrefix(p.String(), "998")) {
			t.Fatalf("accepted %q", s)
		}
	})
}

func TestRotatingAKeyKeepsTheOldOneForItsOverlap(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		overlap time.Duration
		err     error
		oldAt   map[time.Duration]bool // the old key works this long after the rotation
	}{
		{"the default", domain.DefaultKeyOverlap, nil, map[time.Duration]bool{0: true, 23 * time.Hour: true, 24 * time.Hour: false}},
		{"none: it stops now", 0, nil, map[time.Duration]bool{0: false}},
		{"the longest", domain.MaxKeyOverlap, nil, map[time.Duration]bool{domain.MaxKeyOverlap - time.Second: true}},
		{"longer than a week", domain.MaxKeyOverlap + time.Second, domain.ErrKeyOverlap, nil},
		{"negative", -time.Second, domain.ErrKeyOverlap, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := domain.Partner{KeyHash: []byte("old"), PreviousKeyHash: []byte("older"), PreviousKeyUntil: now.Add(time.Hour)}
			if err := p.RotateKey([]byte("new"), now, tt.overlap); !errors.Is(err, tt.err) {
				t.Fatalf("got %v, want %v", err, tt.err)
			}
			if tt.err != nil {
				if string(p.KeyHash) != "old" {
					t.Fatal("a refused rotation changed the key")
				}
				return
			}
			if until, ok := p.KeyWorksUntil([]byte("new"), now.Add(365*24*time.Hour)); !ok || !until.IsZero() {
				t.Fatal("the new key does not work for good")
			}
			if _, ok := p.KeyWorksUntil([]byte("older"), now); ok {
				t.Fatal("a key two rotations old still works")
			}
			for after, want := range tt.oldAt {
				if _, ok := p.KeyWorksUntil([]byte("old"), now.Add(after)); ok != want {
					t.Errorf("the old key %v after the rotation: works %v, want %v", after, ok, want)
				}
			}
		})
	}
}
