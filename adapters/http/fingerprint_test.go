package http_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/application"
)

// storedFingerprint reads the fingerprint stored for request id.
func (h *harness) storedFingerprint(t *testing.T, id string) []byte {
	t.Helper()
	var fp []byte
	if err := h.db.Gorm.Table("idempotency_records").Where("key = ?", id).Select("fingerprint").Row().Scan(&fp); err != nil {
		t.Fatal(err)
	}
	return fp
}

// TestFingerprintCannotBeRecomputedWithoutTheKey: the stored fingerprint of a request is an
// HMAC under the data key, not a plain hash anyone who guesses the params (a PAN, an SMS code)
// could recompute: neither the plain SHA-256 of endpoint and params, nor the HMAC under
// another key, gives it (DESIGN §5, issue 33).
func TestFingerprintCannotBeRecomputedWithoutTheKey(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, path, p := uuid.NewString(), "/microloans/applications/pre-scoring/register", registerParams()
	if a := h.callAs(t, h.key, id, path, p); a.code() != 0 {
		t.Fatalf("register: %s", a.Raw)
	}
	stored := h.storedFingerprint(t, id)
	canonical, _ := json.Marshal(p) // sorted keys, no spacing: the canonical form
	plain := sha256.Sum256(append(append([]byte(path), 0), canonical...))
	other := must(keyring.New([]byte("another-data-key-0123456789abcdef")))
	switch {
	case len(stored) != 33 || stored[0] != 1:
		t.Fatalf("stored fingerprint %x is not a keyed one", stored)
	case bytes.Contains(stored, plain[:]):
		t.Fatal("the stored fingerprint holds the plain hash of the params")
	case bytes.Equal(stored, application.Fingerprints(other, path, canonical)[0]):
		t.Fatal("another key recomputes the stored fingerprint")
	case !bytes.Equal(stored, application.Fingerprints(storetest.Sealer, path, canonical)[0]):
		t.Fatal("the data key does not recompute the stored fingerprint: the test's canonical form is off")
	}
}

// TestFingerprintsOfAnEarlierVersionAreRekeyed: a record stored with a plain fingerprint, as
// before keyed ones, is re-keyed by migrate; its request's retry still replays its answer and
// a changed retry is still refused (code 8). After a key rotation, a record keyed under the
// retired key still matches.
func TestFingerprintsOfAnEarlierVersionAreRekeyed(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, path, p := uuid.NewString(), "/microloans/applications/pre-scoring/register", registerParams()
	first := h.callAs(t, h.key, id, path, p)
	canonical, _ := json.Marshal(p)
	plain := sha256.Sum256(append(append([]byte(path), 0), canonical...))
	if err := h.db.Gorm.Table("idempotency_records").Where("key = ?", id).Update("fingerprint", plain[:]).Error; err != nil {
		t.Fatal(err)
	}
	n, err := store.NewUnitOfWork(h.db).RekeyPlainFingerprints(context.Background(), application.RekeyFingerprint(storetest.Sealer))
	if err != nil || n == 0 {
		t.Fatalf("re-keyed %d: %v", n, err)
	}
	if fp := h.storedFingerprint(t, id); len(fp) != 33 || fp[0] != 2 || bytes.Contains(fp, plain[:]) {
		t.Fatalf("re-keyed fingerprint %x", fp)
	}
	if again := h.callAs(t, h.key, id, path, p); !bytes.Equal(again.Raw, first.Raw) {
		t.Fatalf("the retry after re-keying is not replayed:\n%s\n%s", first.Raw, again.Raw)
	}
	p["phoneNumber"] = "998907654321"
	if a := h.callAs(t, h.key, id, path, p); a.code() != 8 {
		t.Fatalf("a changed retry after re-keying: %s", a.Raw)
	}
	// Rotation: the current key's fingerprints come first, the retired key's still match.
	rotated := must(keyring.New([]byte("the-next-data-key-0123456789abcd"), []byte("tiyin-test-data-key-0123456789ab")))
	fps := application.Fingerprints(rotated, path, canonical)
	old := application.Fingerprints(storetest.Sealer, path, canonical)[0]
	if len(fps) != 4 || bytes.Equal(fps[0], old) || !bytes.Equal(fps[1], old) {
		t.Fatalf("after rotation the fingerprints are %x, the retired key's %x", fps, old)
	}
}
