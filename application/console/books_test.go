package console_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// booksSetup is the Books page's use case on mocks: the closes and provisions read through
// views, the trial balance and journal through the commands' own handlers on books.
func booksSetup(t *testing.T) (*console.BooksHandler, *mocks.MockBooksViews, *mocks.MockBooksRepository, *mocks.MockPartnerRepository) {
	t.Helper()
	ctrl := gomock.NewController(t)
	views, books, partners := mocks.NewMockBooksViews(ctrl), mocks.NewMockBooksRepository(ctrl), mocks.NewMockPartnerRepository(ctrl)
	cfg := application.Config{}
	h := console.NewBooksHandler(views, partners, &application.TrialBalanceHandler{Books: books, Config: cfg},
		&application.JournalHandler{Books: books, Config: cfg}, cfg)
	// The trial balance says whether the general ledger acknowledged the day; the page does not
	// show it (yet): none posted.
	books.EXPECT().GLPosts(gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
	return h, views, books, partners
}

func TestTheBooksPageShowsTheLatestClosedDayAndTheProvisionTable(t *testing.T) {
	t.Parallel()
	h, views, books, partners := booksSetup(t)
	ctx := context.Background()
	sandbox := domain.Partner{ID: uuid.New(), Name: "acme"}
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	views.EXPECT().Closes(gomock.Any(), gomock.Any()).Return([]ports.ScopeClosedDay{
		{Scope: sandbox.ID.String(), Day: day, ClosedDay: ports.ClosedDay{Loans: 1, Postings: 4, Duration: time.Second}},
		{Scope: "", Day: day.AddDate(0, 0, -7), ClosedDay: ports.ClosedDay{Loans: 1, Postings: 2}},
	}, nil)
	partners.EXPECT().List(gomock.Any()).Return([]domain.Partner{sandbox}, nil)
	books.EXPECT().TrialBalance(gomock.Any(), day).Return([]ports.TrialBalanceLine{
		{Kind: domain.AccountInterestIncome, Opening: -100, Credits: 50},
		{Kind: domain.AccountInterestReceivable, Opening: 100, Debits: 50},
	}, nil)
	books.EXPECT().LastClosed(gomock.Any(), "").Return(day.AddDate(0, 0, -7), true, nil)
	views.EXPECT().Provisions(gomock.Any()).Return([]ports.ProvisionSum{
		{Class: "SUBSTANDARD", Loans: 2, Provision: 3000}, {Class: "STANDARD", Loans: 5, Provision: 700}, {Class: "OLD", Loans: 1, Provision: 9},
	}, nil)

	p, err := h.Handle(ctx, console.Actor{Name: "vic", Role: domain.RoleViewer}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Day.Equal(day) || !p.DayClosed || len(p.Closes) != 2 || p.Closes[0].Partner != "acme" || p.Closes[1].Partner != "" {
		t.Fatalf("page %+v", p)
	}
	tb := p.TrialBalance
	if tb.Debits != 50 || tb.Credits != 50 || len(tb.Accounts) != 2 {
		t.Fatalf("trial balance %+v", tb)
	}
	for _, a := range tb.Accounts {
		if a.GL == "" || a.Closing != a.Opening+a.Debits-a.Credits {
			t.Errorf("line %+v", a)
		}
	}
	table := domain.DefaultBooksRules().Provisions
	if len(p.Provisions) != len(table)+1 {
		t.Fatalf("%d provision lines, want the table's %d and the class it no longer names", len(p.Provisions), len(table))
	}
	for i, c := range table {
		if l := p.Provisions[i]; l.Class != c.Class || !l.InTable || l.Basis != c.Basis {
			t.Errorf("line %d %+v, want class %+v", i, l, c)
		}
	}
	if std, sub, old := p.Provisions[0], p.Provisions[1], p.Provisions[len(table)]; std.Loans != 5 || std.Provision != 700 ||
		sub.Loans != 2 || sub.Provision != 3000 || old.Class != "OLD" || old.InTable || p.Provisions[2].Loans != 0 {
		t.Errorf("provisions %+v", p.Provisions)
	}
	if p.ProvisionTotal.Loans != 8 || p.ProvisionTotal.Provision != 3709 {
		t.Errorf("total %+v", p.ProvisionTotal)
	}
}

func TestTheBooksPageBeforeAnyCloseHasNoTrialBalance(t *testing.T) {
	t.Parallel()
	h, views, _, _ := booksSetup(t)
	views.EXPECT().Closes(gomock.Any(), gomock.Any()).Return(nil, nil)
	views.EXPECT().Provisions(gomock.Any()).Return(nil, nil)
	p, err := h.Handle(context.Background(), console.Actor{Role: domain.RoleViewer}, time.Time{})
	if err != nil || !p.Day.IsZero() || len(p.Closes) != 0 || len(p.Provisions) != len(domain.DefaultBooksRules().Provisions) {
		t.Fatalf("page %+v (%v)", p, err)
	}
}

func TestAChosenDayNotClosedIsShownAsOpen(t *testing.T) {
	t.Parallel()
	h, views, books, partners := booksSetup(t)
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	views.EXPECT().Closes(gomock.Any(), gomock.Any()).Return([]ports.ScopeClosedDay{{Day: day.AddDate(0, 0, -1)}}, nil)
	partners.EXPECT().List(gomock.Any()).Return(nil, nil)
	books.EXPECT().TrialBalance(gomock.Any(), day).Return(nil, nil)
	books.EXPECT().LastClosed(gomock.Any(), "").Return(day.AddDate(0, 0, -1), true, nil)
	views.EXPECT().Provisions(gomock.Any()).Return(nil, nil)
	p, err := h.Handle(context.Background(), console.Actor{Role: domain.RoleViewer}, day)
	if err != nil || !p.Day.Equal(day) || p.DayClosed {
		t.Fatalf("page %+v (%v)", p, err)
	}
}

func TestTheBooksAreForOperatorsOnly(t *testing.T) {
	t.Parallel()
	h, _, _, _ := booksSetup(t)
	nobody := console.Actor{Name: "x"}
	if _, err := h.Handle(context.Background(), nobody, time.Time{}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("page: %v", err)
	}
	if _, err := h.Journal(context.Background(), nobody, time.Now()); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("journal: %v", err)
	}
}

func TestTheJournalIsTheCommandsWithItsGLAccounts(t *testing.T) {
	t.Parallel()
	h, _, books, _ := booksSetup(t)
	day := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	loan := uuid.New()
	books.EXPECT().Journal(gomock.Any(), day).Return([]ports.JournalLine{
		{Kind: "CLOSE", Account: domain.LoanAccount(domain.AccountInterestReceivable, loan), Debit: 10},
		{Kind: "CLOSE", Account: domain.BankAccount(domain.AccountInterestIncome), Credit: 10},
	}, nil)
	lines, err := h.Journal(context.Background(), console.Actor{Role: domain.RoleViewer}, day)
	if err != nil || len(lines) != 2 {
		t.Fatalf("%d lines (%v)", len(lines), err)
	}
	chart := domain.DefaultChart()
	for _, l := range lines {
		if l.GL != chart.GL(l.Account.Kind) || l.GL == "" {
			t.Errorf("line %+v, want GL %s", l, chart.GL(l.Account.Kind))
		}
	}
}
