package domain

import "errors"

// Refusal is a business refusal a partner's state-changing call can end with, declared once as
// a sentinel that carries its stable name. A refusal is an outcome like a result: the request's
// idempotency record keeps it, by this name and its text, and a retry gets it again. The names
// are stored: never rename one. Errors that are not refusals (a field error, an unavailable
// gateway) are not outcomes; a retry runs again. The name is declared with the sentinel,
// because the application stores and reads outcomes by it and cannot import an adapter; what a
// partner reads of a refusal (its code, HTTP status and message) is the HTTP edge's, one row of
// its code table for each sentinel.
type Refusal struct {
	name string
	text string
}

func (r *Refusal) Error() string { return r.text }

// Name is the refusal's stable name, the one its outcomes are stored under.
func (r *Refusal) Name() string { return r.name }

// refusals is every Refusal, in the order they were declared: refusal adds each, so that
// declaring a sentinel with it is the only list there is, and a stored name finds its sentinel
// again.
var refusals []*Refusal

// refusal declares a business refusal stored as name and reading text.
func refusal(name, text string) *Refusal {
	r := &Refusal{name: name, text: text}
	refusals = append(refusals, r)
	return r
}

// Refusals returns every business refusal, in the order RefusalName tries them.
func Refusals() []*Refusal {
	return append([]*Refusal(nil), refusals...)
}

// RefusalName returns the stable name of the business refusal err is, or false when err is
// none (a system or field error). It asks errors.Is, so the domain's typed errors that match a
// refusal (StateError, OTPWrongError) are that refusal.
func RefusalName(err error) (string, bool) {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return r.name, true
		}
	}
	return "", false
}

// StoredRefusal is a business refusal read back from where it was kept: it reads as its
// message did and matches its sentinel under errors.Is, so it is answered as it was the first
// time.
type StoredRefusal struct {
	sentinel *Refusal
	message  string
}

func (e StoredRefusal) Error() string { return e.message }

// Unwrap is the refusal's sentinel.
func (e StoredRefusal) Unwrap() error { return e.sentinel }

// RefusalNamed is the refusal stored as name with message; false when no refusal has that
// name (a record of a newer version).
func RefusalNamed(name, message string) (error, bool) {
	for _, r := range refusals {
		if r.name == name {
			return StoredRefusal{sentinel: r, message: message}, true
		}
	}
	return nil, false
}
