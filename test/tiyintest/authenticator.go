package tiyintest

import (
	"strings"
	"sync"
	"time"

	"github.com/pquerna/otp/totp"
)

// Authenticator is an operator's authenticator app in a test: it makes the TOTP codes of the
// secret an enrolment page showed. tiyin accepts each 30-second step's code once, and the step
// after now's too, so Code gives now's step or, when it gave that one already, the next, and
// waits for the clock when that is not due yet: tests log one operator in several times in a
// row.
type Authenticator struct {
	mu     sync.Mutex
	secret string
	last   int64
}

// NewAuthenticator is the app of a secret as the enrolment page shows it (spaces allowed).
func NewAuthenticator(secret string) *Authenticator {
	return &Authenticator{secret: strings.Join(strings.Fields(secret), "")}
}

// Secret is the secret, without spaces.
func (a *Authenticator) Secret() string { return a.secret }

// Code is a code tiyin accepts now and has not seen.
func (a *Authenticator) Code() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	const period = 30
	step := max(a.last+1, time.Now().Unix()/period)
	for time.Now().Unix()/period+1 < step {
		time.Sleep(time.Second)
	}
	a.last = step
	code, err := totp.GenerateCode(a.secret, time.Unix(step*period, 0))
	if err != nil {
		panic("tiyintest: a secret that is not base32: " + err.Error())
	}
	return code
}
