package application

import (
	"time"

	"github.com/tiyin/tiyin/domain"
)

// Config holds the business settings the use cases need.
type Config struct {
	// ApplicationTTL is how long an application may wait in PENDING before it EXPIRES.
	ApplicationTTL time.Duration
	// SandboxCallDelay, when positive, completes a required phone call that long after it was
	// requested (sandbox only); zero leaves it to the sandbox endpoint.
	SandboxCallDelay time.Duration
	// Product is the loan product's settings, copied into each loan at issuance.
	Product Product
	// LoanContractDelay is how long after issuance core banking is first asked for the loan's
	// contract number.
	LoanContractDelay time.Duration
	// OTPTTL is how long an SMS code lives.
	OTPTTL time.Duration
	// SandboxOTP, when set, is every SMS code's value (sandbox only).
	SandboxOTP string
	// AttachCodeCaps are the most SMS codes attach sends a day per card, phone and partner; a
	// cap left 0 takes its default.
	AttachCodeCaps domain.AttachCodeCaps
	// Books are the close's rules (non-accrual, provisions) and Chart the general ledger
	// mapping; zero values take the shipped examples.
	Books domain.BooksRules
	Chart domain.Chart
	// Collections cuts the collections queues and times the reminders to borrowers.
	Collections CollectionsConfig
}

// Product is the loan product's settings.
type Product struct {
	ScheduleType domain.ScheduleType
	ServiceRate  domain.Percent
	PenaltyDaily domain.Percent
}

// LoanProduct is what a loan issued now copies: a fresh id and the product's settings.
func (p Product) LoanProduct() domain.LoanProduct {
	return domain.LoanProduct{LoanID: NewID(), ServiceRate: p.ServiceRate, PenaltyDaily: p.PenaltyDaily, ScheduleType: p.ScheduleType}
}

// offerTerms are the terms a loan on offer o gets from the product; the caller sets the issue
// date. Verify and issue check the cap on them.
func (p Product) offerTerms(o domain.Offer) domain.LoanTerms {
	return domain.LoanTerms{Amount: o.Amount, MonthPeriod: o.MonthPeriod, Rate: o.Percent, ServiceRate: p.ServiceRate, Type: p.ScheduleType}
}

// CollectionsConfig is how the collectors' work is cut: the queues' buckets of days overdue,
// and when reminders go to borrowers.
type CollectionsConfig struct {
	Buckets   domain.Buckets
	Reminders domain.ReminderPolicy
}

// WithDefaults fills what a test or the command line left out: the default buckets, reminders
// three days before a date and in each bucket, from 09:00 to 20:00, three a week.
func (c CollectionsConfig) WithDefaults() CollectionsConfig {
	if len(c.Buckets) == 0 {
		c.Buckets, _ = domain.ParseBuckets(domain.DefaultBuckets)
	}
	if c.Reminders.To == 0 {
		c.Reminders = domain.ReminderPolicy{DaysBefore: 3, From: 9, To: 20, PerWeek: 3}
	}
	c.Reminders.Buckets = c.Buckets
	return c
}

// booksRules are the configured rules of the close, or the shipped example.
func (c Config) booksRules() domain.BooksRules {
	if len(c.Books.Provisions) == 0 {
		return domain.DefaultBooksRules()
	}
	return c.Books
}

// ProvisionTable is the provision table the close applies: the configured one, or the shipped
// example's.
func (c Config) ProvisionTable() []domain.ProvisionClass {
	return c.booksRules().Provisions
}

// chart is the configured general ledger mapping, or the shipped example.
func (c Config) chart() domain.Chart {
	if c.Chart.GL(domain.AccountLoan) == "" {
		return domain.DefaultChart()
	}
	return c.Chart
}
