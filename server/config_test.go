package server

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/ports"
)

// TestTheSandboxScoringPercentIsASetting: TIYIN_SANDBOX_SCORING_PERCENT sets the percent the
// sandbox's pre-scoring offers (28.0 by default), so partners can try offers at the 50 % cap;
// a bad value stops the start naming the setting.
func TestTheSandboxScoringPercentIsASetting(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  int64 // hundredths; -1: refused
	}{{"", 2800}, {"83.06", 8306}, {"99.99", 9999}, {"100", -1}, {"12.345", -1}, {"x", -1}} {
		t.Setenv("TIYIN_SANDBOX_SCORING_PERCENT", tt.value)
		cfg, err := loadConfig()
		if tt.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "TIYIN_SANDBOX_SCORING_PERCENT") {
				t.Errorf("%q: %v, want a refusal naming the setting", tt.value, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.value, err)
		}
		answer, err := sandbox.NewScoringAt(cfg.SandboxScoringPercent).PreScoreResult(context.Background(), ports.PreScoreRequest{IdempotencyKey: "k"})
		if err != nil || answer.Result.Percent.Hundredths() != tt.want {
			t.Errorf("%q: the sandbox offers %s (%v), want %d hundredths", tt.value, answer.Result.Percent, err, tt.want)
		}
	}
}

// TestSecretSettingsReadTheirFile: a secret setting also reads the file <NAME>_FILE names
// (its trailing newline dropped); both at once, or a file that cannot be read, stop the start
// naming the setting and never showing the secret. A setting that is no secret ignores _FILE.
func TestSecretSettingsReadTheirFile(t *testing.T) {
	dir := t.TempDir()
	key := strings.Repeat("ab", 32)
	file := filepath.Join(dir, "data_key")
	if err := os.WriteFile(file, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "scoring_token")
	if err := os.WriteFile(token, []byte("bank-token-from-a-file"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TIYIN_DATA_KEY_FILE", file)
	t.Setenv("TIYIN_SCORING_TOKEN_FILE", token)
	t.Setenv("TIYIN_HTTP_ADDR_FILE", file) // no secret: ignored
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(cfg.DataKey) != key || cfg.HTTPAddr != ":8080" {
		t.Fatalf("data key %x, address %q", cfg.DataKey, cfg.HTTPAddr)
	}
	var scoring string
	for _, g := range cfg.Gateways {
		if g.port == "scoring" {
			scoring = g.cfg.Token
		}
	}
	if scoring != "bank-token-from-a-file" {
		t.Fatalf("scoring token %q", scoring)
	}
	t.Setenv("TIYIN_DATA_KEY", key)
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "TIYIN_DATA_KEY and TIYIN_DATA_KEY_FILE are both set") {
		t.Fatalf("both set: %v", err)
	}
	t.Setenv("TIYIN_DATA_KEY", "")
	t.Setenv("TIYIN_DATA_KEY_FILE", filepath.Join(dir, "missing"))
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "TIYIN_DATA_KEY_FILE") || strings.Contains(err.Error(), key) {
		t.Fatalf("a missing file: %v", err)
	}
}
