package http

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) orderCard(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.OrderCardParams](raw, &fs)
	if n := len(in.ExternalId); n < 1 || n > 64 {
		fs.Add("params.externalId", domain.ErrExternalIDInvalid.Error())
	}
	phone, err := domain.ParsePhone(in.PhoneNumber)
	fs.Check("params.phoneNumber", err)
	cd, err := s.clientData(p, in.ClientData)
	fs.Check("params.clientData", err)
	if !in.PrivacyPolicyAccepted {
		fs.Add("params.privacyPolicyAccepted", "must be true")
	}
	if !in.TermsAndConditionsAccepted {
		fs.Add("params.termsAndConditionsAccepted", "must be true")
	}
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Cards.OrderCard.Handle(ctx, w.call(), application.OrderCard{PartnerID: p.ID, ExternalID: in.ExternalId, Phone: phone, ClientData: cd})
	return rendered(reply, err, func(o application.OrderedCard) any {
		return api.OrderCardResult{OrderId: o.OrderID.String(), ExternalId: o.ExternalID}
	})
}

func (s *Server) getCardOrder(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.OrderIdParams](raw, &fs)
	id, err := parseUUID(in.OrderId)
	fs.Check("params.orderId", err)
	if err := fs.Err(); err != nil {
		return nil, err
	}
	v, err := s.d.App.Cards.GetCardOrder.Handle(ctx, application.GetCardOrder{PartnerID: p.ID, OrderID: id})
	if err != nil {
		return nil, err
	}
	r := api.GetCardOrderResult{Order: api.CardOrder{Status: api.CardOrderStatus(v.Order.Status().String()),
		Description: v.Order.Description()}}
	if c := v.Card; c != nil {
		r.Card = &api.CardInfo{Id: c.ID().String(), Pan: c.MaskedPAN(), Expiry: c.Expiry().String()}
	}
	return r, nil
}

func cardStatusResult(c application.CardState) api.CardStatusResult {
	return api.CardStatusResult{CardId: c.CardID.String(), Status: api.CardStatus(c.Status.String()), Reason: c.Reason}
}

func (s *Server) getCardStatus(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.CardIdParams](raw, &fs)
	id, err := parseUUID(in.CardId)
	fs.Check("params.cardId", err)
	if err := fs.Err(); err != nil {
		return nil, err
	}
	c, err := s.d.App.Cards.GetCard.Handle(ctx, application.GetCard{PartnerID: p.ID, CardID: id})
	if err != nil {
		return nil, err
	}
	return cardStatusResult(c), nil
}

func (s *Server) changeCardStatus(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.ChangeCardStatusParams](raw, &fs)
	id, err := parseUUID(in.CardId)
	fs.Check("params.cardId", err)
	status, err := domain.ParseCardStatus(string(in.Status))
	fs.Check("params.status", err)
	fs.Check("params.reason", domain.CheckReason(in.Reason))
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Cards.ChangeCardStatus.Handle(ctx, w.call(), application.ChangeCardStatus{PartnerID: p.ID, CardID: id, Status: status, Reason: in.Reason})
	return rendered(reply, err, cardStatusResult)
}

func (s *Server) attachCard(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.AttachCardParams](raw, &fs)
	pan, err := domain.ParsePAN(in.Pan)
	fs.Check("params.pan", err)
	expiry, err := domain.ParseExpiry(in.Expiry, s.d.Clock.Now(p.ID))
	fs.Check("params.expiry", err)
	network, err := domain.ParseNetwork(string(in.ProcessingType))
	fs.Check("params.processingType", err)
	phone, err := domain.ParsePhone(in.PhoneNumber)
	fs.Check("params.phoneNumber", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Cards.AttachCard.Handle(ctx, w.call(), application.AttachCard{PartnerID: p.ID, PAN: pan, Expiry: expiry, Network: network, Phone: phone})
	return rendered(reply, err, func(cardID uuid.UUID) any {
		return api.AttachCardResult{CardId: cardID.String()}
	})
}

func (s *Server) confirmCard(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.ConfirmCardParams](raw, &fs)
	id, err := parseUUID(in.CardId)
	fs.Check("params.cardId", err)
	code, err := domain.ParseOTP(in.OtpCode)
	fs.Check("params.otpCode", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Cards.ConfirmCard.Handle(ctx, w.call(), application.ConfirmCard{PartnerID: p.ID, CardID: id, Code: code})
	return rendered(reply, err, func(struct{}) any {
		return api.MessageResult{Message: "Card attached; it is ACTIVE"}
	})
}
