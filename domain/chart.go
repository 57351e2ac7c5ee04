package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Chart maps each account kind to the bank's general ledger account number.
type Chart struct{ gl map[AccountKind]string }

// NewChart checks a mapping of kinds (by name) to general ledger numbers: every kind mapped,
// no unknown kind, and no number mapped to kinds of different sides (a debit-normal and a
// credit-normal kind, or a memo kind and a balance-sheet one, never share an account).
func NewChart(m map[string]string) (Chart, error) {
	c := Chart{gl: map[AccountKind]string{}}
	var errs []string
	for name, gl := range m {
		k, err := ParseAccountKind(name)
		if err != nil {
			errs = append(errs, fmt.Sprintf("unknown account kind %q", name))
			continue
		}
		if strings.TrimSpace(gl) == "" {
			errs = append(errs, fmt.Sprintf("%s has an empty general ledger account", name))
			continue
		}
		c.gl[k] = strings.TrimSpace(gl)
	}
	owner := map[string]AccountKind{}
	for _, k := range AccountKinds() {
		gl, ok := c.gl[k]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s is not mapped", k))
			continue
		}
		if o, ok := owner[gl]; ok && (o.Normal() != k.Normal() || o.OffBalance() != k.OffBalance()) {
			errs = append(errs, fmt.Sprintf("%s is mapped to both %s (%s) and %s (%s)", gl, o, sideName(o), k, sideName(k)))
			continue
		}
		owner[gl] = k
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return Chart{}, fmt.Errorf("%w: general ledger mapping: %s", ErrBooksRules, strings.Join(errs, "; "))
	}
	return c, nil
}

func sideName(k AccountKind) string {
	if k.OffBalance() {
		return "memo " + strings.ToLower(k.Normal().String())
	}
	return strings.ToLower(k.Normal().String())
}

// GL is the kind's general ledger account number.
func (c Chart) GL(k AccountKind) string { return c.gl[k] }

// DefaultChartMapping is the shipped example mapping, for the bank to replace with its own
// chart of accounts (numbers in the style of the Central Bank of Uzbekistan's chart).
func DefaultChartMapping() map[string]string {
	return map[string]string{
		"LOAN": "12401", "OVERDUE_PRINCIPAL": "15701", "INTEREST_RECEIVABLE": "16307", "SERVICE_RECEIVABLE": "16309",
		"PENALTY_RECEIVABLE": "16311", "PROVISION": "12499", "DEMAND": "20206", "HOLD": "22602",
		"INTEREST_IN_ADVANCE": "22812", "SERVICE_IN_ADVANCE": "22814", "CARD_SETTLEMENT": "22618",
		"REPAYMENT_CLEARING": "16103", "CASH_DESK": "10101", "BANK_TRANSFERS": "10301",
		"RECONCILIATION_ADJUSTMENTS": "16199", "WRITTEN_OFF": "16521", "INTEREST_INCOME": "42001",
		"SERVICE_INCOME": "45201", "PENALTY_INCOME": "45401", "RECOVERY_INCOME": "45994",
		"PROVISION_EXPENSE": "56802", "WRITE_OFF_EXPENSE": "56806",
		"MEMO_NONACCRUED_INTEREST": "91501", "MEMO_NONACCRUED_SERVICE": "91502", "MEMO_NONACCRUED_PENALTY": "91503",
		"MEMO_NONACCRUED_CONTRA": "96335", "MEMO_WRITTEN_OFF": "95413", "MEMO_WRITTEN_OFF_CONTRA": "96397",
	}
}

// DefaultChart is the chart of DefaultChartMapping.
func DefaultChart() Chart {
	c, err := NewChart(DefaultChartMapping())
	if err != nil {
		panic(err)
	}
	return c
}
