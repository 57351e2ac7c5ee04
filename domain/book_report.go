package domain

// The loan book's report: its balance sheet and its income lines, read from a day's balances
// of the account kinds. Each on-balance kind sits on exactly one line, so the balance sheet
// balances whenever the books do; each memo kind with a debit side sits on an off-balance line.

// The sections of a BookReport.
const (
	SectionAssets      = "ASSETS"
	SectionLiabilities = "LIABILITIES"
	SectionIncome      = "INCOME"
	SectionOffBalance  = "OFF_BALANCE"
)

// KindBalance is an account kind's balance at the end of a day and its movement during that day,
// both debits minus credits.
type KindBalance struct {
	Kind         AccountKind
	Day, Closing int64
}

// ReportLine is one line of a BookReport: the kinds it sums and their sum, on the line's side
// (an asset, an expense or a memo debit-positive; a liability or an income credit-positive), at
// the end of the day (Closing) and over the day (Day). A contra line (the provision under the
// assets, the expenses under the income) is negative when it reduces its section.
type ReportLine struct {
	Section, Name string
	Kinds         []AccountKind
	Day, Closing  int64
}

// BookReport is the loan book's balance sheet, income lines and off-balance lines at the end of a
// day. Assets equals Liabilities (the result to date included) when the books balance.
type BookReport struct {
	Lines                                        []ReportLine
	Assets, Liabilities, ResultDay, ResultToDate int64
}

// bookReportLayout is the lines in the order they are read, with each line's sign: +1 when its
// kinds' debits minus credits is the line's amount, -1 when credits minus debits is.
var bookReportLayout = []struct {
	section, name string
	sign          int64
	kinds         []AccountKind
}{
	{SectionAssets, "LOANS", 1, []AccountKind{AccountLoan, AccountOverduePrincipal}},
	{SectionAssets, "ACCRUED_CHARGES", 1, []AccountKind{AccountInterestReceivable, AccountServiceReceivable, AccountPenaltyReceivable}},
	{SectionAssets, "PROVISION", 1, []AccountKind{AccountProvision}},
	{SectionAssets, "WRITTEN_OFF_CASH_BASIS", 1, []AccountKind{AccountWrittenOff}},
	{SectionLiabilities, "CLIENT_ACCOUNTS", -1, []AccountKind{AccountDemand, AccountHold}},
	{SectionLiabilities, "CHARGES_IN_ADVANCE", -1, []AccountKind{AccountInterestInAdvance, AccountServiceInAdvance}},
	{SectionLiabilities, "SETTLEMENT_NET", -1, []AccountKind{AccountCardSettlement, AccountRepaymentClearing, AccountCashDesk,
		AccountBankTransfers, AccountReconciliation}},
	{SectionIncome, "INTEREST_INCOME", -1, []AccountKind{AccountInterestIncome}},
	{SectionIncome, "SERVICE_INCOME", -1, []AccountKind{AccountServiceIncome}},
	{SectionIncome, "PENALTY_INCOME", -1, []AccountKind{AccountPenaltyIncome}},
	{SectionIncome, "RECOVERY_INCOME", -1, []AccountKind{AccountRecoveryIncome}},
	{SectionIncome, "PROVISION_EXPENSE", -1, []AccountKind{AccountProvisionExpense}},
	{SectionIncome, "WRITE_OFF_EXPENSE", -1, []AccountKind{AccountWriteOffExpense}},
	{SectionOffBalance, "NONACCRUED_CHARGES", 1, []AccountKind{AccountMemoNonAccruedInterest, AccountMemoNonAccruedService,
		AccountMemoNonAccruedPenalty}},
	{SectionOffBalance, "WRITTEN_OFF_PRINCIPAL", 1, []AccountKind{AccountMemoWrittenOff}},
}

// NewBookReport reads the report from the day's balances; a kind missing from them did not
// move up to that day.
func NewBookReport(balances []KindBalance) BookReport {
	by := make(map[AccountKind]KindBalance, len(balances))
	for _, b := range balances {
		by[b.Kind] = b
	}
	var s BookReport
	for _, l := range bookReportLayout {
		line := ReportLine{Section: l.section, Name: l.name, Kinds: l.kinds}
		for _, k := range l.kinds {
			line.Day += l.sign * by[k].Day
			line.Closing += l.sign * by[k].Closing
		}
		s.Lines = append(s.Lines, line)
		switch l.section {
		case SectionAssets:
			s.Assets += line.Closing
		case SectionLiabilities:
			s.Liabilities += line.Closing
		case SectionIncome:
			s.ResultDay += line.Day
			s.ResultToDate += line.Closing
		}
	}
	s.Liabilities += s.ResultToDate // the result to date stands with the liabilities: the bank's own
	return s
}
