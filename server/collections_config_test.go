package server

import (
	"strings"
	"testing"
)

// TestCollectionsSettingsAreChecked: the buckets and the reminders' hours, cap and lead read
// from their settings; a bad one stops the start naming it.
func TestCollectionsSettingsAreChecked(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		refused     bool
	}{
		{"TIYIN_COLLECTIONS_BUCKETS", "", false},
		{"TIYIN_COLLECTIONS_BUCKETS", "1-30,31+", false},
		{"TIYIN_COLLECTIONS_BUCKETS", "1-7,9-30", true},
		{"TIYIN_REMINDER_HOURS", "8-21", false},
		{"TIYIN_REMINDER_HOURS", "20-9", true},
		{"TIYIN_REMINDER_HOURS", "day", true},
		{"TIYIN_REMINDERS_PER_WEEK", "-1", true},
		{"TIYIN_COLLECTIONS_EVERY", "10ms", true},
	} {
		t.Setenv(tt.name, tt.value)
		cfg, err := loadConfig()
		t.Setenv(tt.name, "")
		if tt.refused {
			if err == nil || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("%s=%q: %v, want a refusal naming the setting", tt.name, tt.value, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s=%q: %v", tt.name, tt.value, err)
		}
		if len(cfg.Collections.Buckets) == 0 || cfg.Collections.Reminders.To == 0 || cfg.Collections.Reminders.Buckets.String() != cfg.Collections.Buckets.String() {
			t.Errorf("%s=%q: collections %+v", tt.name, tt.value, cfg.Collections)
		}
	}
}
