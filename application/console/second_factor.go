package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/tiyin/tiyin/domain"
)

// The second factor's pieces shared by enrolment and login (issue 46): TOTP codes as RFC 6238
// and every authenticator app make them (SHA-1, six digits, 30-second steps), and recovery
// codes kept only as hashes.

// totpIssuer names tiyin in an operator's authenticator app.
const totpIssuer = "tiyin"

// totpOpts are the codes' parameters: RFC 6238's defaults, which every authenticator app reads
// from the enrolment's QR code.
var totpOpts = totp.ValidateOpts{Period: uint(domain.TOTPPeriod / time.Second), Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpSkew is how many time steps before and after now a code is still accepted in: a phone's
// clock a little off, a code typed as it changed.
const totpSkew = 1

// newTOTPKey makes a fresh secret (20 random bytes) for the operator named account.
func newTOTPKey(account string) (*otp.Key, error) {
	return totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: account, Period: totpOpts.Period,
		Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
}

// totpKey is the key of a stored secret (base32) for the operator named account: its otpauth://
// URL is what the enrolment's QR code holds.
func totpKey(secret, account string) (*otp.Key, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return nil, err
	}
	return totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: account, Secret: raw, Period: totpOpts.Period,
		Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
}

// totpStep returns the time step, now's or one either side, whose code the secret makes is
// code (spaces left out); false when none is.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.Join(strings.Fields(code), "")
	step := domain.TOTPStep(now)
	for _, s := range []int64{step, step - totpSkew, step + totpSkew} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*int64(totpOpts.Period), 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// newRecoveryCodes makes an enrolment's recovery codes and their hashes, which are all that is
// kept.
func newRecoveryCodes() ([]domain.RecoveryCode, [][]byte) {
	codes, hashes := make([]domain.RecoveryCode, domain.RecoveryCodes), make([][]byte, domain.RecoveryCodes)
	for i := range codes {
		var b [domain.RecoveryCodeBytes]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		codes[i] = domain.NewRecoveryCode(b)
		hashes[i] = recoveryHash(codes[i])
	}
	return codes, hashes
}

// recoveryHash is what a recovery code is kept as: a SHA-256, like a partner's API key, since
// 80 random bits leave nothing to guess from it.
func recoveryHash(c domain.RecoveryCode) []byte {
	h := sha256.Sum256([]byte("tiyin recovery code " + c.Plain()))
	return h[:]
}
