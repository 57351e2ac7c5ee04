package console

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// usedMessages are the message ids the console shows: {{t "…"}} in the templates and msg("…")
// in its code.
func usedMessages(t *testing.T) map[string]bool {
	t.Helper()
	used := map[string]bool{}
	collect := func(re *regexp.Regexp, text string) {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			id, err := strconv.Unquote(`"` + m[1] + `"`)
			if err != nil {
				t.Fatalf("message %s: %v", m[1], err)
			}
			used[id] = true
		}
	}
	// {{t "…"}}, and a variable set once for a page: {{$x := t "…"}}.
	inTemplate := regexp.MustCompile(`(?:\{\{|:= )t "((?:[^"\\]|\\.)*)"`)
	err := fs.WalkDir(assets, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets, path)
		collect(inTemplate, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	inCode := regexp.MustCompile(`\bmsg\("((?:[^"\\]|\\.)*)"\)`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f) == "i18n_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		collect(inCode, string(b))
	}
	return used
}

// TestEveryMessageIsInEveryCatalogue fails when a message the console shows is missing from a
// language's catalogue, when a catalogue keeps one nobody shows, and when a translation drops
// or adds a {A}-style value.
func TestEveryMessageIsInEveryCatalogue(t *testing.T) {
	used := usedMessages(t)
	if len(used) < 100 {
		t.Fatalf("found only %d messages: the scan is broken", len(used))
	}
	slot := regexp.MustCompile(`\{[A-Z]\}`)
	for _, lang := range Languages {
		b, err := fs.ReadFile(locales, "locales/"+lang+".json")
		if err != nil {
			t.Fatal(err)
		}
		var cat map[string]string
		if err := json.Unmarshal(b, &cat); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		var missing, unused []string
		for id := range used {
			text, ok := cat[id]
			if !ok || text == "" {
				missing = append(missing, id)
				continue
			}
			want, got := slot.FindAllString(id, -1), slot.FindAllString(text, -1)
			sort.Strings(want)
			sort.Strings(got)
			if len(want) != len(got) || len(want) > 0 && strconv.Quote(fmtSlots(want)) != strconv.Quote(fmtSlots(got)) {
				t.Errorf("%s: %q keeps %v of the values %v", lang, text, got, want)
			}
		}
		for id := range cat {
			if !used[id] {
				unused = append(unused, id)
			}
		}
		sort.Strings(missing)
		sort.Strings(unused)
		for _, id := range missing {
			t.Errorf("%s: missing %q", lang, id)
		}
		for _, id := range unused {
			t.Errorf("%s: %q is shown nowhere", lang, id)
		}
	}
}

func fmtSlots(s []string) string {
	out := ""
	for _, x := range s {
		out += x
	}
	return out
}

// TestEachLanguageRendersItsOwn renders the login page in each language from its browser's
// Accept-Language and finds the language's own words.
func TestEachLanguageRendersItsOwn(t *testing.T) {
	c, err := newCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for accept, want := range map[string]string{"en-US,en;q=0.9": "en", "ru-RU,ru;q=0.8": "ru", "uz-Latn-UZ": "uz", "uz": "uz", "de-DE": "en", "": "en"} {
		if got := c.language(accept); got != want {
			t.Errorf("Accept-Language %q gives %s, want %s", accept, got, want)
		}
	}
	if got := c.tr("ru", "Log in"); got == "Log in" || got == "" {
		t.Errorf("Russian for %q is %q", "Log in", got)
	}
	if got := c.tr("uz", "Next {A} →", 50); got == "Next 50 →" || !regexp.MustCompile(`50`).MatchString(got) {
		t.Errorf("Uzbek for Next {A} is %q", got)
	}
}

// TestUzbekWritesTheOkinaAsOneLetter: the Uzbek catalogue writes oʻ and gʻ with the modifier
// letter ʻ (U+02BB) alone, never with an ASCII apostrophe, a backtick or a quotation mark
// (the sign of a glottal stop, ʼ U+02BC as in maʼlum, is another letter and stays).
func TestUzbekWritesTheOkinaAsOneLetter(t *testing.T) {
	b, err := os.ReadFile("locales/uz.json")
	if err != nil {
		t.Fatal(err)
	}
	var uz map[string]string
	if err := json.Unmarshal(b, &uz); err != nil {
		t.Fatal(err)
	}
	for id, text := range uz {
		if i := strings.IndexAny(text, "'`‘’"); i >= 0 {
			t.Errorf("uz %q: %q has %q at %d, not ʻ", id, text, []rune(text[i:])[0], i)
		}
	}
}

// TestTheDashboardAndChartSpeakTheLanguage: the kinds of object and proposal, and the chart's
// bars, are named in each language, not by the store's identifiers.
func TestTheDashboardAndChartSpeakTheLanguage(t *testing.T) {
	c, err := newCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ lang, kind, want string }{
		{"ru", "card_order", "Заказ карты"}, {"uz", "card_order", "Karta buyurtmasi"}, {"en", "card_order", "Card order"},
		{"ru", "WRITE_OFF", "Списание займа"}, {"uz", "transfer", "Oʻtkazma"},
	} {
		if got := c.tr(tt.lang, objectName(tt.kind)); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.lang, tt.kind, got, tt.want)
		}
	}
}
