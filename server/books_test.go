package server

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/domain"
)

func TestTheShippedBooksFilesAreTheDefaults(t *testing.T) {
	t.Parallel()
	rules, chart, err := loadBooks("../examples/books/books.yaml", 90)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rules, domain.DefaultBooksRules()) || !reflect.DeepEqual(chart, domain.DefaultChart()) {
		t.Fatalf("books.yaml is not the default: %+v", rules)
	}
	rules, _, err = loadBooks("../examples/books/ifrs9.yaml", 60)
	want := domain.IFRS9BooksRules()
	want.NonAccrualDays = 60
	if err != nil || !reflect.DeepEqual(rules, want) {
		t.Fatalf("ifrs9.yaml: %+v (%v)", rules, err)
	}
	if _, _, err := loadBooks("", 90); err != nil {
		t.Fatal(err)
	}
}

func TestABadBooksFileStopsTheStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"unknown field", "presets: IFRS9\n", "field presets not found"},
		{"unknown preset", "preset: BASEL\n", `preset "BASEL"`},
		{"a gap", "provisions:\n  - {class: A, from: 0, to: 5, percent: \"1\"}\n  - {class: B, from: 7, percent: \"2\"}\n", "starts at 7 days"},
		{"over 100 %", "provisions:\n  - {class: A, from: 0, percent: \"100.01\"}\n", "percent must be"},
		{"a kind unmapped", "gl:\n  LOAN: \"1\"\n", "is not mapped"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := loadBooks(path, 90); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := loadBooks("", 0); err == nil || !strings.Contains(err.Error(), "non-accrual") {
		t.Errorf("TIYIN_NONACCRUAL_DAYS=0: %v", err)
	}
}
