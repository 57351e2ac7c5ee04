// Package domain holds tiyin's aggregates and value objects: the rules of the bank, free of
// HTTP, SQL and logging, so that they can be tested and reasoned about on their own.
package domain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Sentinel errors name every business refusal the domain can produce. Adapters translate them
// to transport codes in one place; wrapping them with detail keeps errors.Is working.
var (
	// ErrApplicationNotFound means no application with that id belongs to the partner.
	ErrApplicationNotFound = refusal("application-not-found", "application not found")
	// ErrWrongState means the operation is not allowed in the application's status or stage.
	ErrWrongState = refusal("wrong-state", "operation not allowed in the current status")
	// ErrCancelNotAllowed means the initiator may not cancel at the application's stage.
	ErrCancelNotAllowed = refusal("cancel-not-allowed", "initiator may not cancel at this stage")
	// ErrOfferOutOfRange means the offer lies outside the pre-scoring result.
	ErrOfferOutOfRange = refusal("offer-out-of-range", "offer outside the pre-scoring result")
	// ErrClientDataMismatch means clientData differs from the data given at pre-scoring.
	ErrClientDataMismatch = refusal("client-data-mismatch", "clientData differs from the data given at pre-scoring")
	// ErrExternalIDUsed means the partner already used the externalId for another object.
	ErrExternalIDUsed = refusal("external-id-used", "externalId already used by this partner")
	// ErrPartnerNotFound means no partner has that id or name.
	ErrPartnerNotFound = errors.New("partner not found")
	// ErrPartnerExists means a partner with that name exists already.
	ErrPartnerExists = errors.New("partner with this name exists")
)

// ExternalIDUsedError is ErrExternalIDUsed naming the partner's application that has the
// externalId, so a partner that lost its id learns it again. It matches ErrExternalIDUsed
// under errors.Is.
type ExternalIDUsedError struct {
	ApplicationID uuid.UUID
}

func (e ExternalIDUsedError) Error() string {
	return ErrExternalIDUsed.Error() + ": application " + e.ApplicationID.String()
}

// Is makes ExternalIDUsedError match ErrExternalIDUsed.
func (e ExternalIDUsedError) Is(target error) bool { return target == ErrExternalIDUsed }

// StateError tells which operation was refused in which status and stage. It matches
// ErrWrongState under errors.Is.
type StateError struct {
	Op     string
	Status ApplicationStatus
	Stage  Stage
}

func (e StateError) Error() string {
	return fmt.Sprintf("%s is not allowed: application status is %s, stage %s/%s",
		e.Op, e.Status, e.Stage.Name, e.Stage.Status)
}

// Is makes StateError match ErrWrongState.
func (e StateError) Is(target error) bool { return target == ErrWrongState }

// FieldError is one failing field: its JSON path and the reason it fails.
type FieldError struct {
	Path   string
	Reason string
}

// ValidationError lists every failing field of a request. It is the only way invalid input is
// reported, so that a partner sees all problems at once instead of one per round trip.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Path + ": " + f.Reason
	}
	return strings.Join(parts, "; ")
}

// Fieldset collects field errors while a request is being parsed.
type Fieldset struct {
	errs []FieldError
}

// Add records a failing field, unless the field, a parent or a child of it failed already:
// one reason per field is enough, and the first (a wrong type, a missing value) is the cause.
func (f *Fieldset) Add(path, reason string) {
	for _, e := range f.errs {
		if e.Path == path || strings.HasPrefix(path, e.Path+".") || strings.HasPrefix(e.Path, path+".") {
			return
		}
	}
	f.errs = append(f.errs, FieldError{Path: path, Reason: reason})
}

// Check records err as the reason path fails, when err is not nil. A nested ValidationError
// keeps its own paths, prefixed by path.
func (f *Fieldset) Check(path string, err error) {
	if err == nil {
		return
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Fields {
			f.Add(path+"."+fe.Path, fe.Reason)
		}
		return
	}
	f.Add(path, err.Error())
}

// Err returns the collected errors as one ValidationError, or nil when there are none.
func (f *Fieldset) Err() error {
	if len(f.errs) == 0 {
		return nil
	}
	return &ValidationError{Fields: f.errs}
}
