package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// booksLoan is a loan of 1 000 000 000 at 28 % for 12 months issued days before t0.
func booksLoan(days int) *domain.Loan {
	pct, _ := domain.PercentFromHundredths(2800)
	penalty, _ := domain.PercentFromHundredths(5)
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct,
		PenaltyDaily: penalty, ScheduleType: domain.ScheduleAnnuity, IssuedAt: t0.AddDate(0, 0, -days)})
}

func TestTheCloseClosesEachBatchInItsOwnTransactionAndRecordsTheDay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	books := mocks.NewMockBooksRepository(gomock.NewController(t))
	h := application.NewCloseBooksHandler(d.clock, d.uow, books, application.Config{})
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	loans := []*domain.Loan{booksLoan(5), booksLoan(3)}
	books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday.AddDate(0, 0, -1), true, nil)
	books.EXPECT().Start(gomock.Any()).Return(yesterday.AddDate(0, 0, -30), true, nil)
	gomock.InOrder(
		books.EXPECT().LoansToClose(gomock.Any(), ports.Partners{}, yesterday, uuid.Nil, gomock.Any()).Return(loans, nil),
		books.EXPECT().SaveClosed(gomock.Any(), loans, []uuid.UUID{loans[0].ID(), loans[1].ID()}, gomock.Any()).DoAndReturn(
			func(_ context.Context, ls []*domain.Loan, _ []uuid.UUID, ps []domain.Posting) error {
				if !d.inTx {
					t.Error("a batch saved outside a transaction")
				}
				// Issued 5 and 3 days before today: each day from their issue days through
				// yesterday posts (5 and 3 days).
				if len(ps) != 5+3 {
					t.Errorf("%d postings, want 8", len(ps))
				}
				for _, l := range ls {
					if !l.BooksDay().Equal(yesterday) {
						t.Errorf("loan closed through %s", l.BooksDay())
					}
				}
				return nil
			}),
		// Until a batch finds none.
		books.EXPECT().LoansToClose(gomock.Any(), ports.Partners{}, yesterday, loans[1].ID(), gomock.Any()).Return(nil, nil),
		books.EXPECT().MarkClosed(gomock.Any(), "", []time.Time{yesterday}, gomock.Any()).DoAndReturn(
			func(_ context.Context, _ string, _ []time.Time, c ports.ClosedDay) error {
				if c.Loans != 2 || c.Postings != 8 {
					t.Errorf("recorded %+v", c)
				}
				return nil
			}),
	)
	done, err := h.Close(context.Background(), time.Time{})
	if err != nil || len(done) != 1 || done[0].Loans != 2 || !done[0].Through.Equal(yesterday) {
		t.Fatalf("%+v %v", done, err)
	}
}

func TestACloseOfAClosedDayReadsOnly(t *testing.T) {
	t.Parallel()
	d := setup(t)
	books := mocks.NewMockBooksRepository(gomock.NewController(t))
	h := application.NewCloseBooksHandler(d.clock, d.uow, books, application.Config{})
	// A day after today closes only through today.
	books.EXPECT().LastClosed(gomock.Any(), "").Return(domain.BusinessDate(t0), true, nil)
	done, err := h.Close(context.Background(), domain.BusinessDate(t0).AddDate(0, 0, 5))
	if err != nil || len(done) != 0 {
		t.Fatalf("%+v %v", done, err)
	}
}

func TestAFailedBatchRecordsNoDay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	books := mocks.NewMockBooksRepository(gomock.NewController(t))
	h := application.NewCloseBooksHandler(d.clock, d.uow, books, application.Config{})
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	books.EXPECT().LastClosed(gomock.Any(), "").Return(time.Time{}, false, nil)
	books.EXPECT().Start(gomock.Any()).Return(time.Time{}, false, nil)
	books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), yesterday, uuid.Nil, gomock.Any()).Return([]*domain.Loan{booksLoan(40)}, nil)
	boom := errors.New("boom")
	books.EXPECT().SaveClosed(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ []*domain.Loan, _ []uuid.UUID, ps []domain.Posting) error {
			// The first close ever: the loan, issued before it, gets one opening entry.
			if len(ps) != 1 || ps[0].Kind != domain.PostingOpening {
				t.Errorf("postings %+v", ps)
			}
			return boom
		})
	if _, err := h.Close(context.Background(), time.Time{}); !errors.Is(err, boom) || d.rollbacks != 1 {
		t.Fatalf("%v, %d rollbacks", err, d.rollbacks)
	}
}
