package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
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
		// So are the record of where the chain began and the verifications (issue 46), which
		// take sealed rows only.
		v, err := log.Verify(ctx, nil)
		if err != nil || !v.Intact() {
			t.Fatalf("verify: %+v, %v", v, err)
		}
		if err := log.SaveVerification(ctx, v, ports.AuditEntry{At: t0, Operator: "cli", Address: "local", Action: ports.AuditVerified}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"UPDATE audit_verifications SET problem = 'x'", "DELETE FROM audit_verifications",
			"UPDATE audit_chain_start SET prefix_entries = 7", "DELETE FROM audit_chain_start", "INSERT INTO audit_chain_start (id) VALUES (2)",
			"INSERT INTO audit_verifications (at, entries, chained, last_id, broken_id, problem) SELECT at, 0, 0, 0, 0, '' FROM audit_chain_start"} {
			if err := s.db.Gorm.Exec(q).Error; err == nil {
				t.Errorf("%s: done", q)
			}
		}
		if got, err := log.LastVerification(ctx); err != nil || got == nil || !got.Intact() || got.LastID != 2 {
			t.Fatalf("after the refused changes: %+v, %v", got, err)
		}
	})
}

// TestWhereTheChainBeganIsRecordedOnce (issue 46): a log that began before the chain keeps its
// unchained entries as a fixed prefix, recorded in the row migration 00027 made and sealed with
// the data key the first time the schema is migrated with it (no verification is kept before:
// there is nothing to seal it on). An edit, removal or insertion among them, or an unchained
// entry after them, is named; migrating again records nothing, a removed record is never made
// again, and once the log was verified an emptied seal is not sealed again (which would take
// the owner's rewrite for the start).
func TestWhereTheChainBeganIsRecordedOnce(t *testing.T) {
	t.Parallel()
	for _, tamper := range []struct {
		name    string
		sql     []string
		broken  int64
		problem string
	}{
		{"an entry before the chain edited", []string{"UPDATE audit_log SET operator = 'mallory' WHERE id = 2"}, 3, "(3 then, 3 now)"},
		{"an entry before the chain removed", []string{"DELETE FROM audit_log WHERE id = 1"}, 3, "(3 then, 2 now)"},
		{"an unchained entry among them", []string{"INSERT INTO audit_log (id, at, operator, address, action, object, detail) " +
			"SELECT 0, at, operator, address, action, object, detail FROM audit_log WHERE id = 1"}, 3, "(3 then, 4 now)"},
		{"an unchained entry after them", []string{"UPDATE audit_log SET chain = NULL WHERE id = 5"}, 5, "every entry after #3 is chained"},
		{"the record removed", []string{"DELETE FROM audit_chain_start"}, 0, "is gone"},
		{"the record's seal emptied and its prefix changed", []string{"UPDATE audit_chain_start SET seal = NULL",
			"UPDATE audit_log SET chain = NULL"}, 0, "not recorded under the data key"},
	} {
		t.Run(tamper.name, func(t *testing.T) {
			t.Parallel()
			for _, d := range storetest.Dialects {
				t.Run(string(d), func(t *testing.T) {
					t.Parallel()
					ctx := context.Background()
					// A schema migrated without the data key records nothing: the entries of an
					// earlier version go in unchained, then chained ones once the key is there.
					db := storetest.OpenWith(t, d, func(c *store.Config) { c.Sealer = nil })
					for i := range 3 {
						if err := db.Gorm.Exec("INSERT INTO audit_log (at, operator, address, action, object, detail) VALUES (?, 'alice', 'local', 'login', 'operator:alice', ?)",
							t0.Add(time.Duration(i)*time.Second), fmt.Sprint(i)).Error; err != nil {
							t.Fatal(err)
						}
					}
					db.Sealer = storetest.Sealer
					log := store.NewAuditLog(db)
					for i := range 2 {
						if err := log.Append(ctx, ports.AuditEntry{At: t0.Add(time.Minute), Operator: "bob", Action: "login", Detail: fmt.Sprint(i)}); err != nil {
							t.Fatal(err)
						}
					}
					if v, _ := log.Verify(ctx, nil); !strings.Contains(v.Problem, "not recorded") {
						t.Fatalf("before the start is recorded: %+v", v)
					} else if err := log.SaveVerification(ctx, v, ports.AuditEntry{At: t0, Operator: "cli", Action: ports.AuditVerified}); !errors.Is(err, ports.ErrNoAuditStart) {
						t.Fatalf("a verification with nothing to seal it on was kept: %v", err)
					}
					for range 2 {
						if err := db.Migrate(ctx); err != nil {
							t.Fatal(err)
						}
					}
					head, err := log.Head(ctx)
					if err != nil {
						t.Fatal(err)
					}
					v, err := log.Verify(ctx, &head)
					if err != nil || !v.Intact() || v.Entries != 5 || v.Chained != 2 {
						t.Fatalf("the recorded log: %+v, %v", v, err)
					}
					if err := log.SaveVerification(ctx, v, ports.AuditEntry{At: t0, Operator: "cli", Action: ports.AuditVerified}); err != nil {
						t.Fatal(err)
					}
					storetest.Tamper(t, db, tamper.sql...)
					if err := db.Migrate(ctx); err != nil {
						t.Fatal(err)
					}
					got, err := log.Verify(ctx, nil)
					if err != nil || got.BrokenID != tamper.broken || !strings.Contains(got.Problem, tamper.problem) {
						t.Fatalf("after %s: %+v, %v; want #%d named, %q", tamper.name, got, err, tamper.broken, tamper.problem)
					}
				})
			}
		})
	}
}

// TestAForgedLastVerificationShowsBroken (issue 46): the console shows the last verification;
// one the owner inserted or edited, whose seal does not hold, comes back broken, saying so.
func TestAForgedLastVerificationShowsBroken(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		log := store.NewAuditLog(s.db)
		if err := log.Append(ctx, ports.AuditEntry{At: t0, Operator: "alice", Action: "login"}); err != nil {
			t.Fatal(err)
		}
		v, err := log.Verify(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		v.At = t0
		for range 2 {
			if err := log.SaveVerification(ctx, v, ports.AuditEntry{At: t0, Operator: "cli", Action: ports.AuditVerified}); err != nil {
				t.Fatal(err)
			}
			if got, err := log.LastVerification(ctx); err != nil || got == nil || !got.Intact() || !got.At.Equal(t0) {
				t.Fatalf("the genuine one: %+v, %v", got, err)
			}
		}
		storetest.Tamper(t, s.db, "INSERT INTO audit_verifications (at, entries, chained, last_id, head, broken_id, problem, entry_id, seal) "+
			"SELECT at, 9, 9, 9, head, 0, '', entry_id, seal FROM audit_verifications WHERE id = 2")
		got, err := log.LastVerification(ctx)
		if err != nil || got == nil || got.Intact() || !strings.Contains(got.Problem, "verification #3") {
			t.Fatalf("the forged one: %+v, %v", got, err)
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
			o.SetDisabled(true)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ops.ByName(ctx, "alice")
		if err != nil || !back.Disabled() || back.Role() != domain.RoleOfficer || !back.MustChangePassword() {
			t.Fatalf("round trip: %+v, %v", back.State(), err)
		}
		// A grant awaiting a second admin is kept, then applied.
		if err := ops.Update(ctx, o.ID(), func(o *domain.Operator) error {
			_, err := o.ChangeRole(domain.RoleAdmin, "adam", true, t0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if back, _ = ops.ByName(ctx, "alice"); back.Grant() != (domain.Grant{Role: domain.RoleAdmin, RequestedBy: "adam", At: t0}) {
			t.Fatalf("the grant: %+v", back.Grant())
		}
		bea, _ := domain.NewOperator(uuid.New(), "bea", domain.RoleAdmin, "hash", t0)
		if err := ops.Update(ctx, o.ID(), func(o *domain.Operator) error { _, err := o.ApproveGrant(bea, t0); return err }); err != nil {
			t.Fatal(err)
		}
		if back, _ = ops.ByName(ctx, "alice"); back.Role() != domain.RoleAdmin || back.Grant().Pending() {
			t.Fatalf("after the approval: %s %+v", back.Role(), back.Grant())
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

func TestBackOfficeFindsWhatNeedsAttention(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		bo := store.NewBackOffice(s.db)
		later := t0.Add(time.Hour)

		// An application whose stage's outcome went unknown at t0.
		unknown := s.stored(t)
		err := s.apps.Update(ctx, unknown.ID(), func(a *domain.Application) error {
			if err := a.BeginStage(domain.StagePreScoring, t0); err != nil {
				return err
			}
			_, err := a.CompleteStage(domain.StagePreScoring, domain.StageResult{Outcome: domain.OutcomeUnknown}, domain.LoanProduct{}, t0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		steps, err := bo.StageRecords(ctx, unknown.ID(), 10)
		if err != nil || len(steps) != 1 || steps[0].Outcome != domain.OutcomeUnknown || steps[0].Stage != domain.StagePreScoring || !steps[0].At.Equal(t0) {
			t.Fatalf("the unanswered call's attempt: %+v, %v", steps, err)
		}
		waiting := s.stored(t) // NEW, its pre-scoring due since t0
		l := s.fundedLoan(t, 1_000_000)
		tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
			LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
			Amount: 100, CreditToken: "CT-1", Now: t0})
		if err := s.transfers.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
		if err := s.transfers.Update(ctx, tr.ID(), func(x *domain.Transfer) error { return x.StartProcessing(t0) }); err != nil {
			t.Fatal(err)
		}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, record(s, "cut-off")) }); err != nil {
			t.Fatal(err)
		}

		items, err := bo.NeedsAttention(ctx, ports.AttentionQuery{StageBefore: later, UnknownBefore: later, FailedAttempts: 3, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, it := range items {
			found[it.Kind+" "+it.ID.String()] = true
			if !it.Since.Equal(t0) {
				t.Errorf("%s %s waits since %v, want %v", it.Kind, it.ID, it.Since, t0)
			}
		}
		want := map[string]uuid.UUID{"unknown_application": unknown.ID(), "application": waiting.ID(), "transfer": tr.ID(), "request": s.partner.ID}
		for kind, id := range want {
			if !found[kind+" "+id.String()] {
				t.Errorf("needs attention lacks %s %v (all: %+v)", kind, id, items)
			}
		}
		if none, _ := bo.NeedsAttention(ctx, ports.AttentionQuery{StageBefore: t0, UnknownBefore: t0, FailedAttempts: 3, Limit: 10}); len(none) != 0 {
			t.Errorf("nothing waited before t0, yet %+v", none)
		}

		counts, err := bo.CountByStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, c := range counts {
			n[c.Kind+" "+c.Status] = c.N
		}
		if n["transfer PROCESSING"] != 1 || n["loan OPEN"] != 1 || n["application IN_PROGRESS"] != 1 || n["application NEW"] != 2 {
			t.Errorf("counts: %v", n)
		}

		// Search: by any id, a phone's blind index, a card's last four digits, a request id.
		hits := func(q ports.SearchQuery) map[string]uuid.UUID {
			t.Helper()
			q.Limit = 10
			got, err := bo.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]uuid.UUID{}
			for _, h := range got {
				out[h.Kind] = h.ID
			}
			return out
		}
		if got := hits(ports.SearchQuery{ID: unknown.ExternalID()}); got["application"] != unknown.ID() {
			t.Errorf("by externalId: %v", got)
		}
		if got := hits(ports.SearchQuery{ID: l.ID()}); got["loan"] != l.ID() {
			t.Errorf("by loan id: %v", got)
		}
		if got := hits(ports.SearchQuery{ID: tr.ExternalID()}); got["transfer"] != tr.ID() {
			t.Errorf("by the transfer's externalId: %v", got)
		}
		if got := hits(ports.SearchQuery{PhoneIndexes: s.db.PhoneIndexes("998901234567")}); got["application"] == uuid.Nil {
			t.Errorf("by phone: %v", got)
		}
		if got := hits(ports.SearchQuery{PANLast4: "9012"}); got["transfer"] != tr.ID() {
			t.Errorf("by a card's last four: %v", got)
		}
		if got := hits(ports.SearchQuery{Text: "cut-off"}); got["request"] != s.partner.ID {
			t.Errorf("by request id: %v", got)
		}
		if got := hits(ports.SearchQuery{ID: uuid.New()}); len(got) != 0 {
			t.Errorf("an unknown id found %v", got)
		}

		// A loan's accounts and the postings on them, both sides of each.
		accounts, err := bo.Accounts(ctx, l.ID())
		if err != nil || len(accounts) != 3 {
			t.Fatalf("the loan's accounts: %+v, %v", accounts, err)
		}
		entries, err := bo.Entries(ctx, []string{domain.LoanAccount(domain.AccountDemand, l.ID()).Key()}, 10)
		if err != nil || len(entries) < 2 || entries[0].At.IsZero() {
			t.Fatalf("the demand account's postings: %+v, %v", entries, err)
		}
	})
}

// TestTheAuditChainNamesTheFirstBrokenEntry (issues 33, 46): the triggers stop tiyin, not the
// database's owner (SQLite's INSERT OR REPLACE, PostgreSQL's session_replication_role), so each
// entry is chained under the data key, where the chain began is recorded and sealed, and each
// verification is sealed on the one before and has its own line in the log. Whatever the
// owner edits, removes, inserts or empties, in the log, its start or its verifications, the
// next verification names the first entry (or the record) that gives it away; a rollback of
// the log and its verifications to an earlier moment is named against an anchor.
func TestTheAuditChainNamesTheFirstBrokenEntry(t *testing.T) {
	t.Parallel()
	for _, tamper := range []struct {
		name   string
		sql    []string
		broken int64
		// problem is part of what the verification says; anchored gives it the head taken
		// before the change.
		problem  string
		anchored bool
	}{
		{"an entry edited", []string{"UPDATE audit_log SET detail = 'nothing happened' WHERE id = 3"}, 3, "entry #3 does not match its chain", false},
		{"an entry removed", []string{"DELETE FROM audit_log WHERE id = 2"}, 3, "entry #3 does not match its chain", false},
		{"an entry inserted", []string{"INSERT INTO audit_log (id, at, operator, address, action, object, detail, chain) " +
			"SELECT 100, at, operator, address, action, object, detail, chain FROM audit_log WHERE id = 2"}, 100, "entry #100 does not match", false},
		{"an entry replaced", []string{"DELETE FROM audit_log WHERE id = 4", "INSERT INTO audit_log (id, at, operator, address, action, object, detail) " +
			"SELECT 4, at, 'mallory', address, action, object, detail FROM audit_log WHERE id = 3"}, 4, "entry #4 has no chain", false},
		{"the entries the verification saw cut from the end", []string{"DELETE FROM audit_log WHERE id IN (4, 5)"}, 6, "entry #6 does not match", false},
		{"the verification's line cut", []string{"DELETE FROM audit_log WHERE id = 6"}, 6, "the line of verification #1", false},
		{"the verification removed", []string{"DELETE FROM audit_verifications"}, 6, "that verification is gone", false},
		{"a verification forged", []string{"INSERT INTO audit_verifications (at, entries, chained, last_id, head, broken_id, problem, entry_id, seal) " +
			"SELECT at, entries, chained, last_id, head, broken_id, problem, entry_id, seal FROM audit_verifications"}, 0, "verification #2", false},
		{"a verification edited", []string{"UPDATE audit_verifications SET entries = 4"}, 0, "verification #1", false},
		{"every chain emptied", []string{"UPDATE audit_log SET chain = NULL"}, 1, "entry #1 has no chain", false},
		{"an unchained entry appended", []string{"INSERT INTO audit_log (at, operator, address, action, object, detail) " +
			"SELECT at, 'mallory', address, action, object, detail FROM audit_log WHERE id = 5"}, 7, "entry #7 has no chain", false},
		{"where the chain began removed", []string{"DELETE FROM audit_chain_start"}, 0, "is gone", false},
		{"where the chain began unsealed", []string{"UPDATE audit_chain_start SET seal = NULL"}, 0, "not recorded under the data key", false},
		{"where the chain began edited", []string{"UPDATE audit_chain_start SET prefix_last_id = 2"}, 0, "does not match its seal", false},
		{"the log and its verification rolled back, before an anchor", []string{"DELETE FROM audit_log WHERE id >= 4", "DELETE FROM audit_verifications"},
			6, "entry #6, the anchor's, is gone", true},
		{"an entry before an anchor edited", []string{"UPDATE audit_log SET detail = 'nothing happened' WHERE id = 2"}, 2, "entry #2 does not match", true},
	} {
		t.Run(tamper.name, func(t *testing.T) {
			t.Parallel()
			forEachDialect(t, func(t *testing.T, s *suite) {
				ctx := context.Background()
				log := store.NewAuditLog(s.db)
				for i := range 5 {
					if err := log.Append(ctx, ports.AuditEntry{At: t0.Add(time.Duration(i) * time.Second), Operator: "alice",
						Address: "127.0.0.1", Action: "login", Object: "operator:alice", Detail: fmt.Sprint(i)}); err != nil {
						t.Fatal(err)
					}
				}
				v, err := log.Verify(ctx, nil)
				if err != nil || !v.Intact() || v.Entries != 5 || v.Chained != 5 || v.LastID != 5 {
					t.Fatalf("the untouched log: %+v, %v", v, err)
				}
				v.At = t0.Add(time.Minute)
				if err := log.SaveVerification(ctx, v, ports.AuditEntry{At: v.At, Operator: "cli", Address: "local",
					Action: ports.AuditVerified, Object: "audit_log"}); err != nil {
					t.Fatal(err)
				}
				head, err := log.Head(ctx)
				if err != nil || head.Seq != 6 {
					t.Fatalf("the head: %v, %v; want the verification's line, #6", head, err)
				}
				if v, err := log.Verify(ctx, &head); err != nil || !v.Intact() || v.Entries != 6 {
					t.Fatalf("the verified log against its head: %+v, %v", v, err)
				}
				storetest.Tamper(t, s.db, tamper.sql...)
				var anchor *ports.AuditHead
				if tamper.anchored {
					anchor = &head
				}
				got, err := log.Verify(ctx, anchor)
				if err != nil || got.Intact() || got.BrokenID != tamper.broken || !strings.Contains(got.Problem, tamper.problem) {
					t.Fatalf("after %s: %+v, %v; want #%d named, %q", tamper.name, got, err, tamper.broken, tamper.problem)
				}
			})
		})
	}
}
