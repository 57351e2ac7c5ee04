package domain

import "time"

// Wrong passwords are throttled per name and address, and per address, never per account: an
// attacker's wrong passwords slow the attacker down and cannot lock an operator (an admin
// included) out from their own address (issue 33).
const (
	// FreeLoginFailures is how many wrong passwords a name may get from one address before each
	// further attempt waits; FreeAddressFailures how many an address may send for any names.
	FreeLoginFailures   = 5
	FreeAddressFailures = 20
	// The wait after the first failure past the free ones, doubling with each further one up
	// to MaxLoginWait.
	firstLoginWait = time.Minute
	MaxLoginWait   = 15 * time.Minute
)

// LoginThrottle is the wrong passwords of one name from one address (or of one address for
// any names, with free = FreeAddressFailures) and until when its next attempt waits.
type LoginThrottle struct {
	Failures int
	Until    time.Time
}

// Waiting reports whether an attempt at now must wait.
func (t LoginThrottle) Waiting(now time.Time) bool { return now.Before(t.Until) }

// Failed counts a wrong password at now; past free of them, the next attempt waits a minute,
// then two, four, … up to MaxLoginWait. It reports whether this failure started a wait.
func (t *LoginThrottle) Failed(now time.Time, free int) bool {
	t.Failures++
	if t.Failures < free {
		return false
	}
	wait := MaxLoginWait
	if shift := t.Failures - free; shift < 5 {
		wait = min(firstLoginWait<<shift, MaxLoginWait)
	}
	t.Until = now.Add(wait)
	return true
}
