package console

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// A file of cash desk or bank transfer repayments: uploaded (or pasted), previewed line by
// line, proposed as one, and posted when a second officer approves (docs/console.md, "Bulk
// repayments").

// maxBulkFile bounds an uploaded file (1 000 lines fit many times over).
const maxBulkFile = 1 << 20

func (c *Console) bulkRoutes() {
	m := c.mux
	m.HandleFunc("GET /console/collections/bulk", c.authed(c.bulkForm))
	m.HandleFunc("POST /console/collections/bulk/preview", c.authed(c.bulkPreview))
	m.HandleFunc("POST /console/collections/bulk/propose", c.authed(c.bulkPropose))
	m.HandleFunc("GET /console/collections/bulk/{id}", c.authed(c.bulkProposal))
	m.HandleFunc("GET /console/collections/bulk-action", c.authed(c.bulkActionPreview))
	m.HandleFunc("POST /console/collections/bulk-action", c.authed(c.bulkActionPropose))
}

// bulkActionView is a bulk action's preview: the action, its queue and its loans.
type bulkActionView struct {
	Kind   string
	Bucket int
	Lines  []domain.BulkLine
	OK     int
}

// bulkAction reads the action and the queue's bucket a form names.
func bulkAction(v func(string) string) (appconsole.BulkAction, error) {
	a := appconsole.BulkAction{Kind: domain.ProposalKind(v("kind")), Bucket: -1}
	if b := v("bucket"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil {
			return a, fmt.Errorf("%w: bucket %q", errBadInput, b)
		}
		a.Bucket = n
	}
	return a, nil
}

func (c *Console) bulkActionPreview(w http.ResponseWriter, r *http.Request) {
	a, err := bulkAction(r.URL.Query().Get)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	lines, err := c.uc.Collections.PreviewBulkAction.Handle(r.Context(), session(r).Operator, a)
	if err != nil {
		c.fail(w, r, bulkError(err))
		return
	}
	v := bulkActionView{Kind: string(a.Kind), Bucket: a.Bucket, Lines: lines}
	for _, l := range lines {
		if l.OK() {
			v.OK++
		}
	}
	c.show(w, r, "collections-bulk-action", msg("A waiver or write-off of a queue"), v)
}

func (c *Console) bulkActionPropose(w http.ResponseWriter, r *http.Request) {
	a, err := bulkAction(r.PostFormValue)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	id, err := c.uc.Collections.ProposeBulkAction.Handle(r.Context(), session(r).Operator, a, r.PostFormValue("reason"))
	if err != nil {
		c.fail(w, r, bulkError(err))
		return
	}
	done(w, r, "/console/collections/bulk/"+id.String(), "propose")
}

// bulkView is the upload page's data: the file as text, and its lines once previewed.
type bulkView struct {
	File   string
	Lines  []domain.BulkLine
	OK     int
	Reason string
}

func (c *Console) bulkForm(w http.ResponseWriter, r *http.Request) {
	c.show(w, r, "collections-bulk", msg("Repayments from a file"), bulkView{})
}

// bulkFile is the file the form sent: an uploaded file, else the pasted text.
func bulkFile(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBulkFile)
	if f, _, err := r.FormFile("file"); err == nil {
		defer func() { _ = f.Close() }()
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, fmt.Errorf("%w: the file could not be read", errBadInput)
		}
		if len(b) > 0 {
			return b, nil
		}
	}
	if text := r.PostFormValue("text"); text != "" {
		return []byte(text), nil
	}
	return nil, fmt.Errorf("%w: choose a file, or paste its lines", errBadInput)
}

func (c *Console) bulkPreview(w http.ResponseWriter, r *http.Request) {
	file, err := bulkFile(w, r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	lines, err := c.uc.Collections.PreviewBulk.Handle(r.Context(), session(r).Operator, file)
	if err != nil {
		c.fail(w, r, bulkError(err))
		return
	}
	v := bulkView{File: string(file), Lines: lines, Reason: r.PostFormValue("reason")}
	for _, l := range lines {
		if l.OK() {
			v.OK++
		}
	}
	c.show(w, r, "collections-bulk", msg("Repayments from a file"), v)
}

func (c *Console) bulkPropose(w http.ResponseWriter, r *http.Request) {
	file, err := bulkFile(w, r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	id, err := c.uc.Collections.ProposeBulk.Handle(r.Context(), session(r).Operator, file, r.PostFormValue("reason"))
	if err != nil {
		c.fail(w, r, bulkError(err))
		return
	}
	done(w, r, "/console/collections/bulk/"+id.String(), "propose")
}

func (c *Console) bulkProposal(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Collections.Bulk.Handle(r.Context(), session(r).Operator, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "collections-bulk-proposal", msg("Repayments from a file"), p)
}

// bulkError shows a file's refusal as the form's error.
func bulkError(err error) error {
	if errors.Is(err, domain.ErrBulkFile) || errors.Is(err, domain.ErrBulkAction) {
		return refusedInput{err}
	}
	return err
}
