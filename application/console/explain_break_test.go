package console_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// An officer explains a break whose two sides agree on money (a debit the network lists as
// reversed, which tiyin never had) at once, with a note, audited in the transaction that closes
// it; a viewer may not, and a note is required.
func TestAnOfficerExplainsABreak(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	h := &console.ExplainBreakHandler{UoW: c.uow, Reconciliation: rec, Proposals: c.proposals, Audit: console.Audit{Clock: c.clock, Log: c.auditLog()}}
	officer := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	viewer := console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer}
	id := uuid.New()
	rec.EXPECT().Break(gomock.Any(), id).Return(ports.BreakRecord{ID: id, Source: "UZCARD", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakMissingInTiyin, LineID: "D-1",
			Theirs: &domain.StatementLine{ID: "D-1", Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineReversed}}}, nil)
	w := func(note string) console.BreakWork {
		return console.BreakWork{Breaks: []uuid.UUID{id}, Note: note}
	}
	if _, err := h.Handle(context.Background(), viewer, w("late file")); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer's explanation: %v", err)
	}
	if _, err := h.Handle(context.Background(), officer, w("  ")); !errors.Is(err, domain.ErrActionIncomplete) {
		t.Fatalf("no note: %v", err)
	}
	rec.EXPECT().Close(gomock.Any(), id, ports.BreakExplained, "UZCARD's file came a day late", "bob", t0).DoAndReturn(
		func(context.Context, uuid.UUID, string, string, string, time.Time) error {
			if !c.inTx {
				t.Error("explained outside a transaction")
			}
			return nil
		})
	if p, err := h.Handle(context.Background(), officer, w(" UZCARD's file came a day late ")); err != nil || p != uuid.Nil {
		t.Fatalf("proposal %s, %v", p, err)
	}
	if got := c.actions(); len(got) != 1 || got[0] != "bob break.explain" {
		t.Fatalf("audit %v", got)
	}
}
