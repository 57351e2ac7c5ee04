package domain_test

import (
	"errors"
	"testing"

	"github.com/tiyin/tiyin/domain"
)

func TestCollectionsBulkRepaymentsFileReadsLineByLine(t *testing.T) {
	t.Parallel()
	file := "\ufeffcontract,amount,channel,reference,type\n" +
		"4711,1 500.50,CASH_DESK,KO-1,\n" +
		"4712,200,bank_transfer,PP 7,EARLY\n" +
		"4713,-5,CASH_DESK,KO-2,TERM\n" +
		"4714,100,CARD,x,TERM\n" +
		"4715,100,CASH_DESK,,TERM\n" +
		"4716,100,CASH_DESK,KO-1,TERM\n" +
		",100,CASH_DESK,KO-9,TERM\n" +
		"4717,100,CASH_DESK,KO-3,LATE\n"
	lines, err := domain.ParseBulkRepayments([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ok     bool
		amount int64
	}{{true, 150_050}, {true, 20_000}, {false, 0}, {false, 0}, {false, 0}, {false, 0}, {false, 0}, {false, 0}}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, w := range want {
		l := lines[i]
		if l.OK() != w.ok || w.ok && l.Amount != w.amount || l.Line != i+2 {
			t.Errorf("line %d: %+v, want ok %v amount %d", i+2, l, w.ok, w.amount)
		}
	}
	if lines[0].Type != domain.PaymentTerm || lines[1].Channel != domain.ChannelBankTransfer || lines[5].Refusal != "the reference is on line 2 of this file already" {
		t.Errorf("lines %+v", lines)
	}
	for _, bad := range []string{"", "a,b,c\n1,2,3\n", "contract,amount,channel,reference,type\n"} {
		if _, err := domain.ParseBulkRepayments([]byte(bad)); !errors.Is(err, domain.ErrBulkFile) {
			t.Errorf("%q: %v, want ErrBulkFile", bad, err)
		}
	}
}
