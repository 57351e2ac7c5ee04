package http

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// redocSHA256 is the SHA-256 of bundles/redoc.standalone.js in the npm package redoc@2.5.4
// (REDOC_VERSION in the Makefile), checked against `npm pack redoc@2.5.4` when it was pinned.
// A bundle changed by hand, or fetched again without review, fails here: update the version,
// fetch it with make docs-assets, check it the same way and pin its sum.
const redocSHA256 = "dcaf76612bc4a3fbcc923a8966dee2f6146a5f32e5ce1b6f02dd60cbbf89500b"

func TestTheVendoredRedocIsTheReleasedOne(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256(docsBundle)
	if got := hex.EncodeToString(sum[:]); got != redocSHA256 {
		t.Fatalf("adapters/http/docs/redoc.standalone.js has SHA-256 %s, the pinned release %s", got, redocSHA256)
	}
}
