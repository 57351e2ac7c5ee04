package http

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) listEvents(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.ListEventsParams](raw, &fs)
	q := application.ListEvents{PartnerID: p.ID, Limit: application.MaxEventsListed}
	if in.AfterSequence != nil {
		q.AfterSequence = *in.AfterSequence
	}
	if in.Limit != nil {
		q.Limit = *in.Limit
	}
	if in.Types != nil {
		for i, t := range *in.Types {
			typ, err := domain.ParseEventType(string(t))
			fs.Check(fmt.Sprintf("params.types[%d]", i), err)
			q.Types = append(q.Types, typ)
		}
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	page, err := s.d.App.Partners.ListEvents.Handle(ctx, q)
	if err != nil {
		return nil, err
	}
	events := make([]json.RawMessage, len(page.Events))
	for i, e := range page.Events {
		events[i] = e.Body
	}
	return struct {
		Events       []json.RawMessage `json:"events"`
		NextSequence int64             `json:"nextSequence"`
		HasMore      bool              `json:"hasMore"`
	}{events, page.NextSequence, page.HasMore}, nil
}

func (s *Server) sendTestEvent(w write) (written, error) {
	var fs domain.Fieldset
	decodeParams[struct{}](w.params(), &fs)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Partners.SendTestEvent.Handle(w.ctx(), w.call(), application.SendTestEvent{PartnerID: w.partner.ID})
	return rendered(reply, err, func(id uuid.UUID) any {
		return api.SendTestEventResult{EventId: id.String()}
	})
}
