// Package sandbox holds tiyin's fake gateways: deterministic stand-ins for the bank's scoring
// and core banking, driven by documented magic values (docs/integration.md, "Sandbox"), so a partner can
// reach every outcome on purpose.
package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
)

// Magic PINFL endings (the last four digits of clientData.pinfl) and their outcomes.
const (
	// PINFLDeclined: pre-scoring declines.
	PINFLDeclined = "0000"
	// PINFLSlowScoring: the pre-scoring answer is pending for its first SlowScoringPolls polls.
	PINFLSlowScoring = "1111"
	// PINFLPostScoringDeclined: post-scoring (verify) declines.
	PINFLPostScoringDeclined = "2222"
	// PINFLCoreRefuses: core banking refuses to open the account (REJECTED, 1026).
	PINFLCoreRefuses = "3333"
	// PINFLCoreDown: core banking cannot be reached, every time: nothing happens there, and
	// the application is FAILED (1027) after retries.
	PINFLCoreDown = "4444"
	// PINFLIssuanceTimesOut ends in 666 and a digit N (1 to 9): core banking issues the loan,
	// but the first N answers to LOAN_ISSUANCE are lost (a timeout: the outcome is unknown to
	// tiyin, which asks again with the same key); the next one arrives.
	PINFLIssuanceTimesOut = "666"
)

// Sandbox offers and thresholds.
const (
	// AmountLimit is the pre-scoring amount limit: 50 000 000 so'm.
	AmountLimit int64 = 5_000_000_000
	// PercentHundredths is the pre-scoring rate by default: 28.00 %
	// (TIYIN_SANDBOX_SCORING_PERCENT sets another).
	PercentHundredths int64 = 2800
	// MonthPeriod is the pre-scoring longest term.
	MonthPeriod = 12
	// CallThreshold: an offer above 10 000 000 so'm requires a phone call.
	CallThreshold int64 = 1_000_000_000
	// CallCentrePhone is the number the client is told to call.
	CallCentrePhone = "998781400000"
	// SlowScoringPolls is how many polls a slow pre-scoring answer stays pending.
	SlowScoringPolls = 3
)

func hasEnding(pinfl, ending string) bool { return strings.HasSuffix(pinfl, ending) }

// digitsOf derives n decimal digits from key, so the same request always gets the same
// account or reference: that is what makes the fakes idempotent across restarts.
func digitsOf(key string, n int) string {
	sum := sha256.Sum256([]byte(key))
	v := new(big.Int).SetBytes(sum[:])
	s := v.String()
	return s[len(s)-n:]
}

func refOf(prefix, key string) string {
	sum := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s-%s", prefix, hex.EncodeToString(sum[:8]))
}
