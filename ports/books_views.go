package ports

import (
	"context"
	"time"
)

//go:generate go tool mockgen -destination=mocks/books_views.go -package=mocks github.com/tiyin/tiyin/ports BooksViews

// BooksViews reads the books for the console's Books page: the days the closes recorded, and
// the open loans' provisions by class as their last close left them.
type BooksViews interface {
	// Closes lists the days recorded closed, every scope's, the latest day first (scopes in
	// order within a day), at most limit.
	Closes(ctx context.Context, limit int) ([]ScopeClosedDay, error)
	// Provisions sums, by provision class, the open loans a close classified: how many and
	// their provisions, in tiyin. Classes without a loan are not listed.
	Provisions(ctx context.Context) ([]ProvisionSum, error)
}

// ScopeClosedDay is a day recorded closed for a scope ("" for the partners on the system
// time, else the sandbox partner's id), with what the close that closed it did.
type ScopeClosedDay struct {
	Scope string
	Day   time.Time
	ClosedDay
}

// ProvisionSum is a provision class's loans and their provisions.
type ProvisionSum struct {
	Class     string
	Loans     int
	Provision int64
}
