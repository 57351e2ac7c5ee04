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

// listRows are n rows, newest first, a second apart.
func listRows(n int) []ports.ListRow {
	out := make([]ports.ListRow, n)
	for i := range out {
		out[i] = ports.ListRow{ID: uuid.New(), Status: "OPEN", Amount: 100, At: time.Unix(int64(10_000-i), 0)}
	}
	return out
}

func listHandler(t *testing.T, c *fixture, back *mocks.MockBackOffice) *console.ListHandler {
	t.Helper()
	c.partners.EXPECT().List(gomock.Any()).Return([]domain.Partner{{Name: "acme"}}, nil).AnyTimes()
	return &console.ListHandler{UoW: c.uow, BackOffice: back, Partners: c.partners, Audit: console.Audit{Clock: c.clock, Log: c.auditLog()}}
}

// TestAListPageSaysWhetherAnotherFollows: the handler asks for one row more than the page and
// hands back the page with its last row as the next page's start, or none on the last page.
func TestAListPageSaysWhetherAnotherFollows(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		limit, stored int
		wantRows      int
		wantNext      bool
	}{
		{"a full page and more", 5, 12, 5, true},
		{"exactly a page", 5, 5, 5, false},
		{"less than a page", 5, 3, 3, false},
		{"no limit asked: the default", 0, 60, console.ListPageSize, true},
		{"more than the most: the default", console.MaxListPageSize + 1, 60, console.ListPageSize, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := setupConsole(t)
			back := mocks.NewMockBackOffice(gomock.NewController(t))
			rows := listRows(tt.stored)
			back.EXPECT().List(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, q ports.ListQuery) ([]ports.ListRow, error) {
				return rows[:min(q.Limit, len(rows))], nil
			}).Times(1)
			p, err := listHandler(t, c, back).Handle(context.Background(), viewerActor(), ports.ListQuery{Kind: ports.ListLoans, Limit: tt.limit}, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Rows) != tt.wantRows || (p.Next != nil) != tt.wantNext {
				t.Fatalf("%d rows, next %v; want %d, %v", len(p.Rows), p.Next, tt.wantRows, tt.wantNext)
			}
			if tt.wantNext && p.Next.ID != p.Rows[len(p.Rows)-1].ID {
				t.Fatal("the next page does not start after the page's last row")
			}
			if len(p.Statuses) != 3 || p.Statuses[2] != "WRITTEN_OFF" || len(p.Partners) != 1 {
				t.Fatalf("the filter form's choices: %v %v", p.Statuses, p.Partners)
			}
		})
	}
}

// TestAListRefusesWhatItDoesNotHave: before any read, and for every role but none.
func TestAListRefusesWhatItDoesNotHave(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	back := mocks.NewMockBackOffice(gomock.NewController(t)) // any read fails the test
	h := listHandler(t, c, back)
	ctx := context.Background()
	for name, q := range map[string]ports.ListQuery{
		"no such list":                      {Kind: "operators"},
		"a status applications do not have": {Kind: ports.ListApplications, Status: "OPEN"},
		"a status loans do not have":        {Kind: ports.ListLoans, Status: "NEW"},
		"amounts the wrong way round":       {Kind: ports.ListLoans, MinAmount: 500, MaxAmount: 100},
		"a negative amount":                 {Kind: ports.ListLoans, MinAmount: -1},
		"dates the wrong way round":         {Kind: ports.ListLoans, From: time.Unix(100, 0), To: time.Unix(100, 0)},
	} {
		if _, err := h.Handle(ctx, viewerActor(), q, ""); !errors.Is(err, ports.ErrBadList) {
			t.Errorf("%s: %v, want ErrBadList", name, err)
		}
		if err := h.Export(ctx, viewerActor(), q, "", func(console.ExportRow) error { return nil }); !errors.Is(err, ports.ErrBadList) {
			t.Errorf("%s, exported: %v, want ErrBadList", name, err)
		}
	}
	if _, err := h.Handle(ctx, console.Actor{Name: "nobody"}, ports.ListQuery{Kind: ports.ListLoans}, ""); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("no role: %v", err)
	}
	if len(c.audit) != 0 {
		t.Fatalf("a refused export was audited: %v", c.actions())
	}
}

// TestAnExportReadsEveryPageOnceAndIsAudited: the export is audited first, in a unit of work,
// then reads batch after batch from the last row of the one before until a short batch.
func TestAnExportReadsEveryPageOnceAndIsAudited(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	back := mocks.NewMockBackOffice(gomock.NewController(t))
	rows := listRows(2500)
	reads := 0
	back.EXPECT().List(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, q ports.ListQuery) ([]ports.ListRow, error) {
		reads++
		if len(c.audit) != 1 {
			t.Error("rows were read before the export was audited")
		}
		start := 0
		if q.After != nil {
			for i, r := range rows {
				if r.ID == q.After.ID {
					start = i + 1
				}
			}
		}
		return rows[start:min(start+q.Limit, len(rows))], nil
	}).AnyTimes()
	var got []uuid.UUID
	err := listHandler(t, c, back).Export(context.Background(), viewerActor(), ports.ListQuery{Kind: ports.ListLoans, Status: "OPEN"}, "",
		func(r console.ExportRow) error { got = append(got, r.ID); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) || got[0] != rows[0].ID || got[len(got)-1] != rows[len(rows)-1].ID || reads != 3 {
		t.Fatalf("%d rows in %d reads, want %d in 3", len(got), reads, len(rows))
	}
	seen := map[uuid.UUID]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("row %s exported twice", id)
		}
		seen[id] = true
	}
	if acts := c.actions(); len(acts) != 1 || acts[0] != "vic list.export" || c.audit[0].Object != "list:loan" {
		t.Fatalf("audit: %v %+v", acts, c.audit)
	}
}

func viewerActor() console.Actor {
	return console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer, Address: "127.0.0.1"}
}

// TestPortfolioAtRisk: the total adds the partners' rows, and PAR 1, 30 and 90 are the
// principal overdue by more than 0, 30 and 90 days of all principal outstanding, in basis
// points rounded down, exact however large the portfolio.
func TestPortfolioAtRisk(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name               string
		rows               []ports.PortfolioRow
		par1, par30, par90 int64
	}{
		{"nothing outstanding", nil, 0, 0, 0},
		{"two partners", []ports.PortfolioRow{
			{Partner: "a", Open: 3, Outstanding: 600, Principal: [ports.AgingBuckets]int64{300, 100, 100, 0, 100},
				DueToday: ports.Collection{Loans: 1, Principal: 100}, DueThisWeek: ports.Collection{Loans: 2, Principal: 300}},
			{Partner: "b", Open: 1, Outstanding: 300, Principal: [ports.AgingBuckets]int64{0, 0, 0, 300, 0},
				DueThisWeek: ports.Collection{Loans: 1, Principal: 300}},
		}, 6666, 5555, 1111}, // 600/900, 500/900, 100/900
		{"larger than int64 times 10 000", []ports.PortfolioRow{
			{Partner: "a", Open: 2, Outstanding: 4_000_000_000_000_000, Principal: [ports.AgingBuckets]int64{1_000_000_000_000_000, 0, 0, 0, 3_000_000_000_000_000}},
		}, 7500, 7500, 7500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := setupConsole(t)
			back := mocks.NewMockBackOffice(gomock.NewController(t))
			back.EXPECT().Portfolio(gomock.Any(), ports.Today{Date: domain.BusinessDate(t0)}).Return(tt.rows, nil)
			p, err := (&console.ReportsHandler{Clock: c.clock, BackOffice: back}).Portfolio(context.Background(), viewerActor())
			if err != nil {
				t.Fatal(err)
			}
			if p.PAR1 != tt.par1 || p.PAR30 != tt.par30 || p.PAR90 != tt.par90 {
				t.Fatalf("PAR %d %d %d, want %d %d %d", p.PAR1, p.PAR30, p.PAR90, tt.par1, tt.par30, tt.par90)
			}
			var open int
			var outstanding int64
			var today, week ports.Collection
			for _, r := range tt.rows {
				open, outstanding = open+r.Open, outstanding+r.Outstanding
				today.Loans, today.Principal = today.Loans+r.DueToday.Loans, today.Principal+r.DueToday.Principal
				week.Loans, week.Principal = week.Loans+r.DueThisWeek.Loans, week.Principal+r.DueThisWeek.Principal
			}
			if p.Total.Open != open || p.Total.Outstanding != outstanding || p.Total.DueToday != today || p.Total.DueThisWeek != week ||
				p.DueToday != today || p.DueThisWeek != week {
				t.Fatalf("total %+v, due today %+v, this week %+v", p.Total, p.DueToday, p.DueThisWeek)
			}
		})
	}
}

// TestAListOfOnePartnerIsAskedByItsID: the partner named in the filter is the one read for the
// form; an unknown name is refused before any row is read.
func TestAListOfOnePartnerIsAskedByItsID(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	back := mocks.NewMockBackOffice(gomock.NewController(t))
	acme := domain.Partner{ID: uuid.New(), Name: "acme"}
	c.partners.EXPECT().List(gomock.Any()).Return([]domain.Partner{acme, {ID: uuid.New(), Name: "beta"}}, nil).AnyTimes()
	back.EXPECT().List(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, q ports.ListQuery) ([]ports.ListRow, error) {
		if q.PartnerID != acme.ID {
			t.Errorf("asked for partner %s, want acme's %s", q.PartnerID, acme.ID)
		}
		return nil, nil
	}).Times(1)
	h := &console.ListHandler{UoW: c.uow, BackOffice: back, Partners: c.partners, Audit: console.Audit{Clock: c.clock, Log: c.auditLog()}}
	p, err := h.Handle(context.Background(), viewerActor(), ports.ListQuery{Kind: ports.ListLoans}, "acme")
	if err != nil || len(p.Partners) != 2 {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := h.Handle(context.Background(), viewerActor(), ports.ListQuery{Kind: ports.ListLoans}, "nobody"); !errors.Is(err, ports.ErrBadList) {
		t.Fatalf("an unknown partner: %v", err)
	}
}
