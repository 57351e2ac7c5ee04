package console_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestSessionsEndOnPasswordChangeAndAfterTwelveHours (issue 33): a password change ends the
// operator's other sessions but not the one it was made from; a session ends 12 hours after
// it began, however busy; the sweep deletes the sessions that can no longer be resumed.
func TestSessionsEndOnPasswordChangeAndAfterTwelveHours(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, storetest.Open(t, d))
			ctx := context.Background()
			c := e.uc
			alice := e.enrolled(t, "alice", domain.RoleViewer)
			codes := alice.recovery
			// Each login proves the second factor with one of alice's recovery codes (a TOTP
			// code logs in once a 30-second step).
			login := func(password string) appconsole.Session {
				t.Helper()
				s, err := c.Operators.LogIn.Handle(ctx, appconsole.LogIn{Name: "alice", Password: password, Code: codes[0].String(), Address: "127.0.0.1"})
				if err != nil || s.MustEnrol {
					t.Fatalf("login: %+v, %v", s, err)
				}
				codes = codes[1:]
				return s
			}
			resumes := func(s appconsole.Session) bool {
				_, err := c.Operators.ResumeSession.Handle(ctx, s.Token, "127.0.0.1")
				if err != nil && !errors.Is(err, ports.ErrNoSession) {
					t.Fatal(err)
				}
				return err == nil
			}
			laptop, phone := login(alice.password), login(alice.password)
			if err := c.Operators.ChangePassword.Handle(ctx, laptop.Operator, appconsole.ChangePassword{Old: alice.password, New: "alice-long-password-2",
				Session: laptop.Token}); err != nil {
				t.Fatal(err)
			}
			if !resumes(laptop) || resumes(phone) {
				t.Fatalf("after a password change: the changing session resumes %t, the other %t", resumes(laptop), resumes(phone))
			}
			// A session 12 hours old ends, even if it was just used.
			old := login("alice-long-password-2")
			if err := e.db.Gorm.Table("operator_sessions").Where("token_hash = ?", application.HashAPIKey(old.Token)).
				Update("created_at", time.Now().UTC().Add(-domain.SessionLifetime)).Error; err != nil {
				t.Fatal(err)
			}
			if resumes(old) {
				t.Fatal("a session 12 hours old resumes")
			}
			// The sweep deletes what cannot be resumed: idle 30 minutes, or 12 hours old.
			idle, aged, live := login("alice-long-password-2"), login("alice-long-password-2"), login("alice-long-password-2")
			for token, column := range map[string]string{idle.Token: "last_seen_at", aged.Token: "created_at"} {
				if err := e.db.Gorm.Table("operator_sessions").Where("token_hash = ?", application.HashAPIKey(token)).
					Update(column, time.Now().UTC().Add(-domain.SessionLifetime-time.Minute)).Error; err != nil {
					t.Fatal(err)
				}
			}
			if n, err := e.app.Operations.SweepSessions.Handle(ctx); err != nil || n != 2 {
				t.Fatalf("swept %d sessions (%v), want 2", n, err)
			}
			var left int64
			if err := e.db.Gorm.Table("operator_sessions").Count(&left).Error; err != nil || left != 2 || !resumes(live) || !resumes(laptop) {
				t.Fatalf("%d sessions left (%v), want the laptop's and the live one", left, err)
			}
		})
	}
}

// TestPhoneSearchesAndRefusalsAreAudited (issue 33): a search by phone number is a read of
// personal data and leaves an audit line (the number masked); a request a role refuses leaves
// one too, so an operator probing for more than their role allows is seen.
func TestPhoneSearchesAndRefusalsAreAudited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	a := e.issuedApplication(t)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	if rec := serve(h, &viewer, http.MethodGet, "/console/search?q="+a.Phone().String(), nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("phone search: %d", rec.Code)
	}
	retry := "/console/applications/" + a.ID().String() + "/retry"
	if rec := serve(h, &viewer, http.MethodPost, retry, url.Values{"csrf": {viewer.csrf}}); rec.Code != http.StatusForbidden {
		t.Fatalf("a viewer's retry: %d", rec.Code)
	}
	entries, err := e.uc.Views.AuditTrail.Handle(context.Background(), appconsole.CLIActor, ports.AuditFilter{}, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, en := range entries {
		if en.Operator == "vic" {
			seen[en.Action] = en.Object
		}
	}
	phone := a.Phone().String()
	if obj := seen["search.phone"]; obj == "" || strings.Contains(obj, phone) || !strings.HasSuffix(obj, phone[len(phone)-2:]) {
		t.Errorf("the phone search is audited as %q, want the number masked", obj)
	}
	if obj := seen["access.refused"]; obj != "POST "+retry {
		t.Errorf("the refused retry is audited as %q", obj)
	}
}

// TestTheAuditPageShowsTheLastVerification: the audit page says when the chain was last
// verified and what was found; an admin verifies it from there, which the log records. A
// verification the database's owner forged shows as broken (issue 46).
func TestTheAuditPageShowsTheLastVerification(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	e := newEnv(t, db)
	h, _ := e.console(t)
	viewer, admin := e.as(t, "vic", domain.RoleViewer), e.as(t, "adam", domain.RoleAdmin)
	if body := serve(h, &viewer, http.MethodGet, "/console/audit", nil).Body.String(); !strings.Contains(body, "never verified") {
		t.Fatal("the page does not say the chain was never verified")
	}
	if rec := serve(h, &admin, http.MethodPost, "/console/audit/verify", url.Values{"csrf": {admin.csrf}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("verify: %d", rec.Code)
	}
	if body := serve(h, &viewer, http.MethodGet, "/console/audit", nil).Body.String(); !strings.Contains(body, "Chain verified") ||
		!strings.Contains(body, "entries intact") || !strings.Contains(body, "audit.verify") {
		t.Fatal("the page does not show the verification, or its line")
	}
	storetest.Tamper(t, db, "INSERT INTO audit_verifications (at, entries, chained, last_id, head, broken_id, problem, entry_id, seal) "+
		"SELECT at, entries + 1, chained, last_id, head, broken_id, problem, entry_id, seal FROM audit_verifications")
	if body := serve(h, &viewer, http.MethodGet, "/console/audit", nil).Body.String(); !strings.Contains(body, "BROKEN") ||
		!strings.Contains(body, "does not match its seal") {
		t.Fatal("the page shows a forged verification as genuine")
	}
}
