package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

func TestTheAuditLogIsAppendOnly(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		log := store.NewAuditLog(s.db)
		for _, action := range []string{"login", "proposal.approve"} {
			if err := log.Append(ctx, ports.AuditEntry{At: t0, Operator: "alice", Address: "127.0.0.1", Action: action, Object: "operator:alice"}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := log.List(ctx, ports.AuditFilter{Operator: "alice", Limit: 10})
		if err != nil || len(got) != 2 || got[0].Action != "proposal.approve" || got[1].ID >= got[0].ID {
			t.Fatalf("list: %+v, %v (want newest first)", got, err)
		}
		// The database itself refuses to change or remove a line, whoever asks.
		if err := s.db.Gorm.Exec("UPDATE audit_log SET operator = 'mallory'").Error; err == nil {
			t.Fatal("an audit line was updated")
		}
		if err := s.db.Gorm.Exec("DELETE FROM audit_log").Error; err == nil {
			t.Fatal("an audit line was deleted")
		}
		if got, _ := log.List(ctx, ports.AuditFilter{Limit: 10}); len(got) != 2 || got[0].Operator != "alice" {
			t.Fatalf("after the refused changes: %+v", got)
		}
	})
}

func TestOperatorsSessionsAndProposals(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		ops := store.NewOperatorRepository(s.db)
		o, _ := domain.NewOperator(uuid.New(), "alice", domain.RoleOfficer, "hash", t0)
		if err := ops.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		dup, _ := domain.NewOperator(uuid.New(), "alice", domain.RoleViewer, "hash", t0)
		if err := ops.Create(ctx, dup); !errors.Is(err, domain.ErrOperatorExists) {
			t.Fatalf("a taken name: %v", err)
		}
		err := ops.Update(ctx, o.ID(), func(o *domain.Operator) error {
			for range domain.MaxFailedLogins {
				o.LoginFailed(t0)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ops.ByName(ctx, "alice")
		if err != nil || !back.Locked(t0) || back.Role() != domain.RoleOfficer || !back.MustChangePassword() {
			t.Fatalf("round trip: %+v, %v", back.State(), err)
		}
		sess := ports.OperatorSession{TokenHash: []byte("hash-of-token"), OperatorID: o.ID(), CSRF: "csrf", CreatedAt: t0, LastSeenAt: t0}
		if err := ops.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if err := ops.TouchSession(ctx, sess.TokenHash, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := ops.Session(ctx, sess.TokenHash)
		if err != nil || !got.LastSeenAt.Equal(t0.Add(time.Minute)) || got.CSRF != "csrf" {
			t.Fatalf("session: %+v, %v", got, err)
		}
		if err := ops.DeleteSessions(ctx, o.ID(), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := ops.Session(ctx, sess.TokenHash); !errors.Is(err, ports.ErrNoSession) {
			t.Fatalf("a deleted session: %v", err)
		}

		props := store.NewProposalRepository(s.db)
		object := uuid.New()
		p, _ := domain.NewProposal(uuid.New(), domain.ResolveTransfer, object, true, "", "the bank says credited", o.ID(), t0)
		if err := props.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		rival, _ := domain.NewProposal(uuid.New(), domain.ResolveTransfer, object, false, "", "a rival", o.ID(), t0)
		if err := props.Create(ctx, rival); !errors.Is(err, domain.ErrProposalOpen) {
			t.Fatalf("a second open proposal on one object: %v", err)
		}
		checker, _ := domain.NewOperator(uuid.New(), "bob", domain.RoleOfficer, "hash", t0)
		if err := ops.Create(ctx, checker); err != nil {
			t.Fatal(err)
		}
		if err := props.Update(ctx, p.ID, func(p *domain.Proposal) error { return p.Decide(true, checker.ID(), t0.Add(time.Hour)) }); err != nil {
			t.Fatal(err)
		}
		open, _ := props.List(ctx, uuid.Nil, 10)
		mine, _ := props.List(ctx, object, 10)
		if len(open) != 0 || len(mine) != 1 || mine[0].Status != domain.ProposalApproved || mine[0].DecidedBy != checker.ID() {
			t.Fatalf("after the approval: open %d, object's %+v", len(open), mine)
		}
		if err := props.Create(ctx, rival); err != nil {
			t.Fatalf("a new proposal once the first is decided: %v", err)
		}
	})
}
