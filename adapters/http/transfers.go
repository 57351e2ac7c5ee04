package http

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) createTransfer(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.CreateTransferParams](raw, &fs)
	ext, err := parseUUID(in.ExternalId)
	fs.Check("params.externalId", err)
	app, err := parseUUID(in.ApplicationId)
	fs.Check("params.applicationId", err)
	var pan domain.PAN
	var cardID uuid.UUID
	switch {
	case in.Pan != nil && in.CardId != nil:
		fs.Add("params.cardId", "give either pan or cardId, not both")
	case in.Pan != nil:
		pan, err = domain.ParsePAN(*in.Pan)
		fs.Check("params.pan", err)
	case in.CardId != nil:
		cardID, err = parseUUID(*in.CardId)
		fs.Check("params.cardId", err)
	default:
		fs.Add("params.pan", "must not be empty (or give cardId)")
	}
	network, err := domain.ParseNetwork(string(in.ReceiverCardType))
	fs.Check("params.receiverCardType", err)
	holder, err := domain.ParseCardHolder(in.CardHolderName)
	fs.Check("params.cardHolderName", err)
	amount, err := domain.ParseAmount(in.Amount)
	fs.Check("params.amount", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Transfers.CreateTransfer.Handle(ctx, w.call(), application.CreateTransfer{PartnerID: p.ID, ApplicationID: app,
		ExternalID: ext, PAN: pan, CardID: cardID, Network: network, CardHolder: holder, Amount: amount})
	return rendered(reply, err, func(id uuid.UUID) any {
		return api.CreateTransferResult{TransactionId: id.String()}
	})
}

func (s *Server) transferRef(p domain.Partner, raw json.RawMessage) (application.TransferRef, error) {
	var fs domain.Fieldset
	in := decodeParams[api.TransferRefParams](raw, &fs)
	ext, err := parseUUID(in.ExternalId)
	fs.Check("params.externalId", err)
	id, err := parseUUID(in.TransactionId)
	fs.Check("params.transactionId", err)
	return application.TransferRef{PartnerID: p.ID, TransactionID: id, ExternalID: ext}, fs.Err()
}

func (s *Server) confirmTransfer(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	ref, err := s.transferRef(p, raw)
	if err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Transfers.ConfirmTransfer.Handle(ctx, w.call(), ref)
	return rendered(reply, err, func(t application.TransferState) any {
		return api.ConfirmTransferResult{ExternalId: t.ExternalID.String(), Status: api.TransferStatus(t.Status.String()), Message: t.Message}
	})
}

func (s *Server) checkTransfer(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	ref, err := s.transferRef(p, raw)
	if err != nil {
		return nil, err
	}
	t, err := s.d.App.Transfers.GetTransfer.Handle(ctx, ref)
	if err != nil {
		return nil, err
	}
	now := s.d.Clock.Now(p.ID)
	return api.CheckTransferResult{ExternalId: t.ExternalID().String(), TransactionId: t.ID().String(),
		TransactionDate: businessTime(t.TransactionDateAt(now)), Status: api.TransferStatus(t.StatusAt(now).String()),
		Message: t.MessageAt(now)}, nil
}

// businessTime is a moment as the wire shows it: Tashkent time, whole seconds.
func businessTime(t time.Time) time.Time { return t.In(domain.Tashkent).Truncate(time.Second) }

// midnight is the start of a business date (midnight UTC of the date) in Tashkent.
func midnight(date time.Time) time.Time {
	y, m, d := date.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, domain.Tashkent)
}
