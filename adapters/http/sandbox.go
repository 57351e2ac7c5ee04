package http

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) advanceClock(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.AdvanceClockParams](raw, &fs)
	d, err := time.ParseDuration(in.Duration)
	if err != nil || d < 0 {
		fs.Add("params.duration", `must be a duration of 0 or more, such as "31m", "720h" or "0s"`)
	}
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Sandbox.AdvanceClock.Handle(ctx, w.call(), application.AdvanceClock{PartnerID: p.ID, By: d})
	return rendered(reply, err, func(now time.Time) any {
		return api.AdvanceClockResult{Now: businessTime(now)}
	})
}

func (s *Server) smsOutbox(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.SMSOutboxParams](raw, &fs)
	phone, err := domain.ParsePhone(in.PhoneNumber)
	fs.Check("params.phoneNumber", err)
	if err := fs.Err(); err != nil {
		return nil, err
	}
	sent, err := s.d.App.Sandbox.ReadSMSOutbox.Handle(ctx, p.ID, phone)
	if err != nil {
		return nil, err
	}
	out := make([]api.SMSMessage, len(sent))
	for i, m := range sent {
		out[i] = api.SMSMessage{PhoneNumber: m.Phone.String(), Text: m.Text, Code: m.Code, SentAt: businessTime(m.SentAt)}
	}
	return api.SMSOutboxResult{Messages: out}, nil
}

func (s *Server) completeVerification(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	id, err := applicationIDParams(raw)
	if err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Sandbox.CompleteVerification.Handle(ctx, w.call(), application.CompleteVerification{PartnerID: p.ID, ApplicationID: id})
	return rendered(reply, err, func(struct{}) any {
		return api.CompleteVerificationResult{Message: "Phone verification completed; issue may start"}
	})
}

func (s *Server) resetSandbox(w write) (written, error) {
	var fs domain.Fieldset
	decodeParams[struct{}](w.params(), &fs)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Sandbox.Reset.Handle(w.ctx(), w.call(), application.ResetSandbox{PartnerID: w.partner.ID})
	return rendered(reply, err, func(now time.Time) any {
		return api.ResetSandboxResult{Now: businessTime(now)}
	})
}
