package domain

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// BulkRepayments approves a file of manual repayments (cash desk receipts, bank transfers) at
// once: each line the preview found OK is posted as its own manual repayment when a second
// officer approves. Its object is the file's batch.
const BulkRepayments ProposalKind = "BULK_REPAYMENTS"

// BulkLoanActions approves one loan action (a penalty or interest waiver of all that is owed,
// or a write-off) on every loan a filter of the collections queue picked, at once: each loan
// the preview found OK gets its action when a second officer approves. Its object is the batch.
const BulkLoanActions ProposalKind = "BULK_LOAN_ACTIONS"

// IsBulk reports whether the kind approves a batch of loan actions.
func (k ProposalKind) IsBulk() bool { return k == BulkRepayments || k == BulkLoanActions }

// ErrBulkAction means a bulk action by filter was asked for something other than a waiver or
// a write-off, or its filter picked no loan.
var ErrBulkAction = errors.New("a bulk action by filter waives penalty or interest, or writes off, the loans of a queue that has some")

// ErrBulkFile means a repayments file is not a CSV with the expected header, or has no line,
// or too many.
var ErrBulkFile = errors.New("a repayments file is a CSV with the header contract,amount,channel,reference,type and 1 to 1000 lines")

// maxBulkLines bounds a file: one approval posts it in one transaction.
const maxBulkLines = 1000

// BulkLine is one line of a repayments file: the repayment it asks for and, once previewed,
// whether it may be posted (Refusal empty) or why not.
type BulkLine struct {
	// ID is the line's own id: its repayment's external id once posted.
	ID uuid.UUID
	// Kind is the line's loan action: a manual repayment (a file's line), or the action a
	// filter's loans all get.
	Kind     ProposalKind
	Line     int
	Contract string
	LoanID   uuid.UUID
	Amount   int64 // tiyin
	Channel  Channel
	Ref      string
	Type     PaymentType
	Refusal  string
}

// OK reports whether the line may be posted.
func (l BulkLine) OK() bool { return l.Refusal == "" }

// Proposal is the line as the manual repayment it posts, proposed by the file's maker.
func (l BulkLine) Proposal(note string, by uuid.UUID, at time.Time) (*Proposal, error) {
	if l.Kind != "" && l.Kind != ActionManualRepayment {
		return NewLoanActionProposal(l.ID, l.Kind, l.LoanID, LoanActionTerms{}, "", note, by, at)
	}
	return NewLoanActionProposal(l.ID, ActionManualRepayment, l.LoanID, LoanActionTerms{Amount: l.Amount, PaymentType: l.Type,
		Channel: l.Channel}, l.Ref, note, by, at)
}

// BulkActionLine is the line of a filter's loan for action kind (a waiver of all that is owed,
// or a write-off); ErrBulkAction for another kind.
func BulkActionLine(n int, kind ProposalKind, loan *Loan) (BulkLine, error) {
	if kind != ActionWaivePenalty && kind != ActionWaiveInterest && kind != ActionWriteOff {
		return BulkLine{}, ErrBulkAction
	}
	return BulkLine{ID: uuid.Must(uuid.NewV7()), Kind: kind, Line: n, Contract: loan.ContractNumber(), LoanID: loan.ID()}, nil
}

// bulkHeader is a repayments file's first line.
var bulkHeader = []string{"contract", "amount", "channel", "reference", "type"}

// ParseBulkRepayments reads a repayments file: a header, then a line per repayment (the loan's
// contract number, the amount in so'm with up to two decimals, CASH_DESK or BANK_TRANSFER, the
// receipt's or transfer's reference, TERM or EARLY; TERM when empty). A line that does not read
// is kept with its refusal, so the preview shows every line's outcome; a file that is no such
// CSV is refused whole (ErrBulkFile).
func ParseBulkRepayments(file []byte) ([]BulkLine, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(file, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil || len(head) < len(bulkHeader) {
		return nil, ErrBulkFile
	}
	for i, h := range bulkHeader {
		if !strings.EqualFold(strings.TrimSpace(head[i]), h) {
			return nil, ErrBulkFile
		}
	}
	var out []BulkLine
	refs := map[string]int{}
	for n := 2; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrBulkFile, n, err)
		}
		if len(out) == maxBulkLines {
			return nil, ErrBulkFile
		}
		for len(rec) < len(bulkHeader) {
			rec = append(rec, "")
		}
		l := BulkLine{ID: uuid.Must(uuid.NewV7()), Kind: ActionManualRepayment, Line: n, Contract: strings.TrimSpace(rec[0]), Ref: strings.TrimSpace(rec[3])}
		l.Refusal = l.read(rec)
		if l.OK() {
			key := l.Channel.String() + " " + l.Ref
			if first, ok := refs[key]; ok {
				l.Refusal = fmt.Sprintf("the reference is on line %d of this file already", first)
			} else {
				refs[key] = n
			}
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, ErrBulkFile
	}
	return out, nil
}

// read fills the line's amount, channel and type from rec and returns why it cannot be
// posted, "" when it reads.
func (l *BulkLine) read(rec []string) string {
	if l.Contract == "" {
		return "no contract number"
	}
	amount, err := parseSoms(rec[1])
	if err != nil {
		return "the amount is so'm above zero, with at most two decimals"
	}
	l.Amount = amount
	if l.Channel, err = ParseChannel(strings.ToUpper(strings.TrimSpace(rec[2]))); err != nil || l.Channel == ChannelCard {
		return "the channel is CASH_DESK or BANK_TRANSFER"
	}
	if _, err := manualReceipt(l.Channel, l.Ref); err != nil {
		return "give the receipt's or the transfer's reference (up to 100 characters)"
	}
	t := strings.ToUpper(strings.TrimSpace(rec[4]))
	if t == "" {
		t = PaymentTerm.String()
	}
	if l.Type, err = ParsePaymentType(t); err != nil {
		return "the type is TERM or EARLY"
	}
	return ""
}

// parseSoms reads so'm ("1 500.50", "1500,5") as tiyin.
func parseSoms(s string) (int64, error) {
	s = strings.NewReplacer(" ", "", "\u00a0", "", ",", ".").Replace(strings.TrimSpace(s))
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 2 || whole == "" || len(whole) > 15 {
		return 0, ErrBulkFile
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n <= 0 {
		return 0, ErrBulkFile
	}
	return n, nil
}

// NewBulkProposal records an officer's proposal of a previewed batch (BulkRepayments or
// BulkLoanActions). The note is the reason, required.
func NewBulkProposal(id uuid.UUID, kind ProposalKind, batch uuid.UUID, note string, by uuid.UUID, now time.Time) (*Proposal, error) {
	if !kind.IsBulk() {
		return nil, fmt.Errorf("%w: %s is no batch", ErrProposalIncomplete, kind)
	}
	note = strings.TrimSpace(note)
	if note == "" || len(note) > 500 {
		return nil, fmt.Errorf("%w: give the reason (up to 500 characters)", ErrProposalIncomplete)
	}
	return &Proposal{ID: id, Kind: kind, ObjectID: batch, Note: note, Status: ProposalOpen, ProposedBy: by, ProposedAt: now}, nil
}
