package console

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/tiyin/tiyin/domain"
)

// The console speaks Uzbek (Latin), Russian and English, one message catalogue each in
// locales/: a message's id is its English text, and {A}, {B} stand for the values a page puts
// in it. Each operator chooses a language (the header's switch); the login page follows the
// browser's Accept-Language. TestEveryMessageIsInEveryCatalogue fails when a message the
// templates or the code use is missing from any catalogue.

//go:embed locales/*.json
var locales embed.FS

// Languages are the console's languages, the default first.
var Languages = domain.ConsoleLanguages

// languageNames name each language in itself, for the switch.
var languageNames = map[string]string{"en": "English", "ru": "Русский", "uz": "Oʻzbekcha"}

// catalogue looks messages up in the three catalogues, and matches a browser's languages to
// them.
type catalogue struct {
	localizers map[string]*i18n.Localizer
	matcher    language.Matcher
}

func newCatalogue() (*catalogue, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	c := &catalogue{localizers: map[string]*i18n.Localizer{}}
	tags := make([]language.Tag, len(Languages))
	for i, lang := range Languages {
		if _, err := b.LoadMessageFileFS(locales, "locales/"+lang+".json"); err != nil {
			return nil, fmt.Errorf("console catalogue %s: %w", lang, err)
		}
		c.localizers[lang] = i18n.NewLocalizer(b, lang)
		tags[i] = language.Make(lang)
	}
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

// language is the console language that best matches a browser's Accept-Language, English
// when it names none of them.
func (c *catalogue) language(accept string) string {
	want, _, err := language.ParseAcceptLanguage(accept)
	if err != nil {
		return Languages[0]
	}
	_, i, conf := c.matcher.Match(want...)
	if conf == language.No {
		return Languages[0]
	}
	return Languages[i]
}

// tr is message id in lang, its {A}, {B}… replaced by args in order. A message missing from
// the catalogue shows its English id (the catalogues' test keeps that from shipping).
func (c *catalogue) tr(lang, id string, args ...any) string {
	l, ok := c.localizers[lang]
	if !ok {
		l = c.localizers[Languages[0]]
	}
	s, err := l.Localize(&i18n.LocalizeConfig{MessageID: id})
	if err != nil || s == "" {
		s = id
	}
	for i, a := range args {
		s = strings.ReplaceAll(s, "{"+string(rune('A'+i))+"}", fmt.Sprint(a))
	}
	return s
}

// templates parses the console's templates once per language, each with its own t.
func (c *catalogue) templates() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, lang := range Languages {
		fm := template.FuncMap{
			"t":    func(id string, args ...any) string { return c.tr(lang, id, args...) },
			"lang": func() string { return lang },
			"ago": func(t, now time.Time) string {
				n, unit := age(now.Sub(t))
				return c.tr(lang, unit, n)
			},
			"languages": func() []languageOption {
				out := make([]languageOption, len(Languages))
				for i, l := range Languages {
					out[i] = languageOption{Code: l, Name: languageNames[l]}
				}
				return out
			},
		}
		out[lang] = template.Must(template.New("").Funcs(funcs).Funcs(fm).ParseFS(assets, "templates/*.html"))
	}
	return out
}

// languageOption is one language of the switch.
type languageOption struct{ Code, Name string }

// msg marks a message the code shows (a page title, a confirmation, an error): the catalogues'
// test finds its id by this call.
func msg(id string) string { return id }
