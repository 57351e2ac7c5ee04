package domain_test

import (
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tiyin/tiyin/domain"
)

// Fuzz targets for every value-object parser: none may panic, and whatever one accepts must
// be the value it promises. `make fuzz` runs each for FUZZTIME.

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func FuzzParsePAN(f *testing.F) {
	for _, s := range []string{"8600123456789012", "8600 1234 5678 9012", "9860000000000002", "", "86001234567890123", "８６００"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePAN(s)
		if err != nil {
			return
		}
		d := p.Digits()
		if len(d) != 16 || !allDigits(d) {
			t.Fatalf("%q accepted as %q", s, d)
		}
		if m := p.Masked(); m != d[:6]+"******"+d[12:] {
			t.Fatalf("masked %q shows the middle digits of %q", m, d)
		}
	})
}

func FuzzParseExpiry(f *testing.F) {
	for _, s := range []string{"3012", "0130", "1399", "0000", "12/30", ""} {
		f.Add(s)
	}
	today := domain.BusinessDate(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	f.Fuzz(func(t *testing.T, s string) {
		e, err := domain.ParseExpiry(s, today)
		if err != nil {
			return
		}
		if e.LastDay().Before(today) {
			t.Fatalf("%q accepted though it has expired (%s)", s, e.LastDay())
		}
		if back, err := domain.RestoreExpiry(e.String()); err != nil || back != e {
			t.Fatalf("%q does not round-trip: %q, %v", s, e.String(), err)
		}
	})
}

func FuzzParseOTP(f *testing.F) {
	for _, s := range []string{"123456", "12345", "1234567", "12 456", "١٢٣٤٥٦"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, err := domain.ParseOTP(s)
		if err == nil && (len(code) != 6 || !allDigits(code)) {
			t.Fatalf("%q accepted as %q", s, code)
		}
	})
}

func FuzzParseWebhookURL(f *testing.F) {
	for _, s := range []string{"https://partner.example/hooks", "http://127.0.0.1:9/h", "ftp://x", "https://u:p@x/", "https://x/#f", "//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := domain.ParseWebhookURL(s)
		if err != nil {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("%q accepted as %q", s, got)
		}
	})
}

func FuzzParsePartnerName(f *testing.F) {
	for _, s := range []string{"acme", " acme ", "", "a\x00b", "\xff", strings.Repeat("x", 101)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, err := domain.ParsePartnerName(s)
		if err != nil {
			return
		}
		if name == "" || name != strings.TrimSpace(name) || !utf8.ValidString(name) || utf8.RuneCountInString(name) > 100 ||
			strings.ContainsFunc(name, unicode.IsControl) {
			t.Fatalf("%q accepted as %q", s, name)
		}
	})
}

func FuzzParseOperatorName(f *testing.F) {
	for _, s := range []string{"dilnoza", " off1 ", "off1\u200b", "adm1\nforged", "\u202eadm1", "cli", "Cli", "ab", strings.Repeat("a", 33), "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, err := domain.ParseOperatorName(s)
		if err != nil {
			return
		}
		again, err := domain.ParseOperatorName(name)
		if err != nil || again != name || len(name) < 3 || len(name) > 32 || name == "cli" || name == "system" ||
			strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != "" {
			t.Fatalf("%q accepted as %q", s, name)
		}
	})
}

func FuzzParseContractNumber(f *testing.F) {
	for _, s := range []string{"0012345", "", "12a", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := domain.ParseContractNumber(s)
		if err == nil && !allDigits(n) {
			t.Fatalf("%q accepted as %q", s, n)
		}
	})
}

func FuzzParseAmount(f *testing.F) {
	for _, v := range []int64{1, 0, -1, 1 << 62, -1 << 63} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		a, err := domain.ParseAmount(v)
		if (err == nil) != (v > 0) || (err == nil && a.Tiyin() != v) {
			t.Fatalf("%d: %v, %v", v, a, err)
		}
	})
}

// FuzzParseEnums: every enum parser accepts exactly its names, and what it accepts prints back
// as the input.
func FuzzParseEnums(f *testing.F) {
	for _, s := range []string{"NEW", "ACTIVE", "UZCARD", "HUMO", "EARLY", "TERM", "ANNUITY", "CLIENT", "COMPLETED", "active", ""} {
		f.Add(s)
	}
	parsers := map[string]func(string) (string, error){
		"Network":           str(domain.ParseNetwork),
		"PaymentType":       str(domain.ParsePaymentType),
		"CardStatus":        str(domain.ParseCardStatus),
		"CardOrderStatus":   str(domain.ParseCardOrderStatus),
		"CardOrigin":        str(domain.ParseCardOrigin),
		"ApplicationStatus": str(domain.ParseApplicationStatus),
		"StageName":         str(domain.ParseStageName),
		"StageStatus":       str(domain.ParseStageStatus),
		"EventType":         str(domain.ParseEventType),
		"RepaymentStatus":   str(domain.ParseRepaymentStatus),
		"ScheduleType":      str(domain.ParseScheduleType),
		"TransferStatus":    str(domain.ParseTransferStatus),
		"CancelInitiator":   str(domain.ParseCancelInitiator),
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, parse := range parsers {
			if got, err := parse(s); err == nil && got != s {
				t.Fatalf("%s: %q accepted as %q", name, s, got)
			}
		}
	})
}

func str[T interface{ String() string }](parse func(string) (T, error)) func(string) (string, error) {
	return func(s string) (string, error) {
		v, err := parse(s)
		if err != nil {
			return "", err
		}
		return v.String(), nil
	}
}

func FuzzParseCardHolder(f *testing.F) {
	for _, s := range []string{"AZIZ KARIMOV", "  O'RINBOYEV  AZIZ ", "<script>", "", "A.B-C"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, err := domain.ParseCardHolder(s)
		if err != nil {
			return
		}
		if name == "" || strings.ContainsAny(name, "<>\"&;\x00") || strings.Contains(name, "  ") || utf8.RuneCountInString(name) > 100 ||
			strings.ContainsFunc(name, unicode.IsControl) {
			t.Fatalf("%q accepted as %q", s, name)
		}
	})
}
