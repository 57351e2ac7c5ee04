package console

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"net/http"
	"strings"

	"github.com/pquerna/otp"
	"go.uber.org/zap"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// The second factor's enrolment (issue 46): after the one-time password is changed, and before
// any other page, the operator adds the secret to an authenticator app, from its text or its
// QR code (a PNG served by the console itself: img-src 'self', no script, no data: URI), and
// types a code to confirm; the recovery codes are shown once, in that answer.

// enrolPath is the enrolment page.
const enrolPath = "/console/second-factor"

// qrSize is the QR code's width and height in pixels.
const qrSize = 200

// enrolView is the enrolment page: the secret in groups of four, easy to type.
type enrolView struct{ Secret string }

// enrolment shows the secret to enrol; an operator enrolled already goes to the dashboard.
func (c *Console) enrolment(w http.ResponseWriter, r *http.Request) {
	c.enrolmentPage(w, r, http.StatusOK, "")
}

func (c *Console) enrolmentPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	s := session(r)
	e, err := c.uc.Operators.BeginEnrolment.Handle(r.Context(), s.Operator)
	if errors.Is(err, domain.ErrSecondFactorEnrolled) {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.render(w, r, status, "enrol", page{Title: msg("Set up your second factor"), Session: &s, Err: problem,
		Data: enrolView{Secret: groups(e.Secret)}})
}

// enrolmentQR is the secret's otpauth:// URL as a QR code, for the enrolment page only.
func (c *Console) enrolmentQR(w http.ResponseWriter, r *http.Request) {
	e, err := c.uc.Operators.BeginEnrolment.Handle(r.Context(), session(r).Operator)
	if errors.Is(err, domain.ErrSecondFactorEnrolled) {
		err = errNotFound
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	var b bytes.Buffer
	key, err := otp.NewKeyFromURL(e.URL)
	if err == nil {
		var qr image.Image
		if qr, err = key.Image(qrSize, qrSize); err == nil {
			err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, qr)
		}
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	if _, err := w.Write(b.Bytes()); err != nil {
		c.log.Warn("console: the enrolment's QR code cut short", zap.Error(err))
	}
}

// enrol confirms the enrolment with a code; the recovery codes are shown in this answer only,
// under the session that replaces the one that enrolled.
func (c *Console) enrol(w http.ResponseWriter, r *http.Request) {
	next, codes, err := c.uc.Operators.EnrolSecondFactor.Handle(r.Context(), session(r),
		appconsole.EnrolSecondFactor{Code: r.PostFormValue("code")})
	if err != nil {
		status, text := problem(err)
		if status == http.StatusInternalServerError {
			c.log.Error("console: enrol", zap.Error(err))
		}
		c.enrolmentPage(w, r, status, text)
		return
	}
	c.setCookie(w, sessionCookie, next.Token, 0)
	c.render(w, r, http.StatusOK, "recovery", page{Title: msg("Your recovery codes"), Session: &next, Data: codes})
}

// groups writes a secret in groups of four characters.
func groups(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
