package server

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tiyin/tiyin/domain"
)

// booksFile is the file TIYIN_BOOKS_FILE names (docs/accounting.md, The bank's settings).
type booksFile struct {
	// Preset is a shipped provision table: DEFAULT or IFRS9; Provisions replaces it.
	Preset     string `yaml:"preset"`
	Provisions []struct {
		Class   string `yaml:"class"`
		From    int    `yaml:"from"`
		To      *int   `yaml:"to"` // absent: no upper bound
		Percent string `yaml:"percent"`
	} `yaml:"provisions"`
	GL map[string]string `yaml:"gl"`
}

// loadBooks reads the books' settings: the file (empty: the shipped example) and the
// non-accrual threshold, checked as the close and the reports need them.
func loadBooks(path string, nonAccrualDays int) (domain.BooksRules, domain.Chart, error) {
	rules, mapping := domain.DefaultBooksRules(), domain.DefaultChartMapping()
	if path != "" {
		raw, err := os.ReadFile(path) //nolint:gosec // the operator names the file, as the variable itself would be
		if err != nil {
			return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE: %w", err)
		}
		var f booksFile
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil {
			return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE %s: %w", path, err)
		}
		switch strings.ToUpper(f.Preset) {
		case "", "DEFAULT":
		case "IFRS9":
			rules = domain.IFRS9BooksRules()
		default:
			return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE %s: preset %q: want DEFAULT or IFRS9", path, f.Preset)
		}
		if len(f.Provisions) > 0 {
			rules.Provisions = nil
			for _, p := range f.Provisions {
				basis, err := parseBasis(p.Percent)
				if err != nil {
					return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE %s: class %s: %w", path, p.Class, err)
				}
				to := -1
				if p.To != nil {
					to = *p.To
				}
				rules.Provisions = append(rules.Provisions, domain.ProvisionClass{Class: p.Class, From: p.From, To: to, Basis: basis})
			}
		}
		if f.GL != nil {
			mapping = f.GL
		}
	}
	rules.NonAccrualDays = nonAccrualDays
	if err := rules.Validate(); err != nil {
		return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE / TIYIN_NONACCRUAL_DAYS: %w", err)
	}
	chart, err := domain.NewChart(mapping)
	if err != nil {
		return rules, domain.Chart{}, fmt.Errorf("TIYIN_BOOKS_FILE: %w", err)
	}
	return rules, chart, nil
}

// parseBasis reads a percent from 0 to 100 with at most two decimals, in hundredths.
func parseBasis(s string) (int64, error) {
	bad := errors.New("percent must be a number from 0 to 100 with at most two decimals")
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	if len(frac) > 2 {
		return 0, bad
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w < 0 || f < 0 || w*100+f > 10000 {
		return 0, bad
	}
	return w*100 + f, nil
}
