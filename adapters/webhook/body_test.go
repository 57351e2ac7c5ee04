package webhook_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/webhook"
	"github.com/tiyin/tiyin/domain"
)

// TestBodiesLeaveTheirNumberForTheOutbox: a rendered body carries "sequence":0 just before
// "type", the text the outbox's numbering replaces.
func TestBodiesLeaveTheirNumberForTheOutbox(t *testing.T) {
	t.Parallel()
	b, err := webhook.Body(domain.NewTestEvent(uuid.New(), time.Now()))
	if err != nil || !strings.Contains(string(b), `,"sequence":0,"type":"`) {
		t.Fatalf("%s, %v", b, err)
	}
}

// TestBodiesShowAStageAsTheAnswersDo: a failed stage's code and message are in the event, as
// lastTask shows them in the application's info; a completed application reads LOAN_ISSUED.
func TestBodiesShowAStageAsTheAnswersDo(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 24, 10, 0, 0, 7_000_000, time.UTC)
	for _, tt := range []struct {
		name   string
		data   domain.ApplicationChanged
		status string
		code   int
	}{
		{"declined", domain.ApplicationChanged{ApplicationID: uuid.New(), Status: domain.StatusFailed,
			Stage: domain.Stage{Name: domain.StagePreScoring, Status: domain.StageFailed, Error: domain.StageErrorPreScoringDeclined, Message: "declined"}},
			"FAILED", 1024},
		{"issued", domain.ApplicationChanged{ApplicationID: uuid.New(), Status: domain.StatusCompleted,
			Stage: domain.Stage{Name: domain.StageGetLoanIssuanceResult, Status: domain.StageCompleted}}, "LOAN_ISSUED", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := webhook.Body(domain.Event{ID: uuid.New(), At: at, Data: tt.data})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				CreatedAt string
				Data      struct {
					Status   string
					LastTask struct {
						ErrorCode    *int
						ErrorMessage *string
					}
				}
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Data.Status != tt.status || got.CreatedAt != "2026-11-24T15:00:00.007+05:00" {
				t.Fatalf("%s", b)
			}
			if tt.code == 0 && got.Data.LastTask.ErrorCode != nil ||
				tt.code != 0 && (got.Data.LastTask.ErrorCode == nil || *got.Data.LastTask.ErrorCode != tt.code || *got.Data.LastTask.ErrorMessage != "declined") {
				t.Fatalf("%s", b)
			}
		})
	}
}

// TestReminderBodyTellsTheRuleAndInstalment: a reminder's event names its kind, bucket, date and
// amount, the date as a plain date.
func TestReminderBodyTellsTheRuleAndInstalment(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC)
	b, err := webhook.Body(domain.NewReminderEvent(uuid.New(), domain.ReminderEvent{ApplicationID: uuid.New(), ContractNumber: "123",
		Kind: domain.ReminderOverdue, Bucket: "8-30", Due: due, Amount: 150_000}, due.AddDate(0, 0, 9)))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type string
		Data map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "REMINDER_SENT" || got.Data["kind"] != "OVERDUE" || got.Data["bucket"] != "8-30" ||
		got.Data["dueDate"] != "2026-05-11" || got.Data["amount"] != float64(150_000) || got.Data["loanId"] != "123" {
		t.Fatalf("%s", b)
	}
}
