package application

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// AttachCard binds a card issued by any bank and sends the client an SMS code (endpoint 19).
type AttachCard struct {
	PartnerID uuid.UUID
	PAN       domain.PAN
	Expiry    domain.Expiry
	Network   domain.Network
	Phone     domain.Phone
}

// AttachCardHandler asks the network whether it knows the card, stores it UNVERIFIED with the
// hash of a new code (or gives the partner's card still waiting for its code a new one) and
// sends the code. A code that cannot be sent is void. Each code counts against the daily caps
// per card, phone and partner.
type AttachCardHandler struct {
	clock      ports.Clock
	uow        ports.UnitOfWork
	processing ports.Processing
	cards      ports.CardRepository
	counts     ports.CodeCounter
	sms        ports.SMSSender
	sealer     ports.Sealer
	rq         Requests
	// ttl is how long a code lives; fixedOTP, when set, is every code (sandbox only).
	ttl      time.Duration
	fixedOTP string
	caps     []domain.CodeCap
}

// NewAttachCardHandler returns the handler on the ports it uses.
func NewAttachCardHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	processing ports.Processing, cards ports.CardRepository, counts ports.CodeCounter, sms ports.SMSSender, sealer ports.Sealer,
	cfg Config) *AttachCardHandler {
	h := &AttachCardHandler{
		clock:      clock,
		uow:        uow,
		processing: processing,
		cards:      cards,
		counts:     counts,
		sms:        sms,
		sealer:     sealer,
		rq:         Requests{UoW: uow, Store: idempotency},
		ttl:        cfg.OTPTTL,
		fixedOTP:   cfg.SandboxOTP,
		caps:       cfg.AttachCodeCaps.Caps(),
	}
	if h.ttl <= 0 {
		h.ttl = domain.DefaultOTPTTL
	}
	return h
}

// Handle answers with the card's id.
//
// Steps, each transaction short and no gateway call inside one:
//  1. the network looks the card up;
//  2. one transaction claims the request, stores the card with the new code's hash and counts
//     the code against the daily caps (a cap reached: code 7, and nothing of it is kept);
//  3. the SMS gateway sends the code;
//  4. one transaction stores the answer: the card's id, or 1006 with the code voided when the
//     SMS gateway refused it.
//
// A retry with the same id after a stop between 2 and 4 finds the claim unanswered: it gives
// the card a new code (the one made before the stop is lost with it) and goes on at 3.
func (h *AttachCardHandler) Handle(ctx context.Context, call Call, cmd AttachCard) (Reply[uuid.UUID], error) {
	prior, err := lookup[uuid.UUID](ctx, h.rq, call)
	if err != nil || prior.ended {
		return prior.reply, err
	}
	code, err := newOTP(h.fixedOTP)
	if err != nil {
		return Reply[uuid.UUID]{}, err
	}
	var id uuid.UUID
	if prior.resume {
		id, err = h.renewCode(ctx, cmd, code)
		if err != nil {
			return resume(ctx, h.rq, call, func(context.Context) (uuid.UUID, error) { return uuid.Nil, err })
		}
	} else {
		ref, err := h.processing.LookupCard(ctx, ports.CardQuery{PAN: cmd.PAN, Expiry: cmd.Expiry, Network: cmd.Network, Phone: cmd.Phone})
		if err != nil {
			if !errors.Is(err, domain.ErrCardRejected) {
				err = gatewayError(err)
			}
			return refuse[uuid.UUID](ctx, h.rq, call, err)
		}
		if first, err := begin[uuid.UUID](ctx, h.rq, call, func(ctx context.Context) (err error) {
			id, err = h.storeCode(ctx, cmd, ref, code)
			return err
		}); err != nil || first.ended {
			return first.reply, err
		}
	}
	text := fmt.Sprintf("tiyin: %s is the code to attach card %s. It is valid for %s. Never share it.",
		code, cmd.PAN.Masked(), humanDuration(h.ttl))
	sendErr := h.sms.Send(ctx, ports.SMS{Phone: cmd.Phone, Text: text, Partner: cmd.PartnerID, Code: code, Card: cmd.PAN.Masked()})
	if sendErr != nil && !errors.Is(sendErr, domain.ErrSMSNotSent) {
		return Reply[uuid.UUID]{}, gatewayError(sendErr) // the outcome is unknown: code 10, a retry resumes
	}
	return resume(ctx, h.rq, call, func(ctx context.Context) (uuid.UUID, error) {
		if sendErr == nil {
			return id, nil
		}
		err := updateCard(ctx, h.cards, cmd.PartnerID, id, func(c *domain.Card) error {
			c.VoidOTP(h.clock.Now(cmd.PartnerID))
			return nil
		})
		if err != nil {
			return uuid.Nil, err
		}
		if err := h.uncountCode(ctx, cmd); err != nil { // the caps count codes sent
			return uuid.Nil, err
		}
		return uuid.Nil, keep(sendErr) // 1006, and the voided code with it
	})
}

// storeCode is step 2: the partner's card waiting for its code gets a new one, or a new card
// is stored with it.
func (h *AttachCardHandler) storeCode(ctx context.Context, cmd AttachCard, ref, code string) (uuid.UUID, error) {
	now := h.clock.Now(cmd.PartnerID)
	pans := panHashes(h.sealer, cmd.PAN)
	existing, err := h.cards.FindLive(ctx, cmd.PartnerID, pans)
	var id uuid.UUID
	switch {
	case err == nil:
		id = existing.ID()
		err = h.cards.Update(ctx, id, func(c *domain.Card) error {
			return c.Resend(ref, otpHash(h.sealer, id, code), h.ttl, now)
		})
	case errors.Is(err, domain.ErrCardNotFound):
		id = NewID()
		err = h.cards.Create(ctx, domain.NewAttachedCard(domain.NewAttachedCardParams{ID: id, PartnerID: cmd.PartnerID,
			PAN: cmd.PAN, PANHash: pans[0], Expiry: cmd.Expiry, Network: cmd.Network, Phone: cmd.Phone, NetworkRef: ref,
			OTPHash: otpHash(h.sealer, id, code), OTPTTL: h.ttl, Now: now}))
	}
	if err != nil {
		return uuid.Nil, err
	}
	return id, h.countCode(ctx, cmd, pans[0], now)
}

// countCode counts a new code against each daily cap, in the transaction that stores it, so
// two attaches at once never both send a cap's last code. The first cap reached refuses the
// code: the transaction rolls back, the counts taken before it with it, so a refused attach
// counts nothing. A card and a phone are counted by their keyed hashes, across partners.
func (h *AttachCardHandler) countCode(ctx context.Context, cmd AttachCard, panHash []byte, now time.Time) error {
	day, resets := domain.CodeCapDay(now)
	subject := h.capSubjects(cmd, panHash)
	for _, c := range h.caps {
		taken, err := h.counts.Take(ctx, ports.CodeCount{Scope: c.Scope, Key: subject[c.Scope], Day: day, Limit: c.Limit})
		if err != nil {
			return err
		}
		if !taken {
			return domain.AttachCodeCapError{Cap: c, ResetsAt: resets}
		}
	}
	return nil
}

// capSubjects are what each cap counts a code of cmd against: the card, the phone (by their
// keyed hashes, across partners) and the partner.
func (h *AttachCardHandler) capSubjects(cmd AttachCard, panHash []byte) map[domain.CodeCapScope]string {
	return map[domain.CodeCapScope]string{
		domain.CodeCapCard:    hex.EncodeToString(panHash),
		domain.CodeCapPhone:   hex.EncodeToString(phoneHash(h.sealer, cmd.Phone)),
		domain.CodeCapPartner: cmd.PartnerID.String(),
	}
}

// uncountCode gives back the code the SMS gateway refused to send, on the day it is given back
// (a refusal right after midnight gives it to the new day, whose count it may not have).
func (h *AttachCardHandler) uncountCode(ctx context.Context, cmd AttachCard) error {
	day, _ := domain.CodeCapDay(h.clock.Now(cmd.PartnerID))
	subject := h.capSubjects(cmd, panHashes(h.sealer, cmd.PAN)[0])
	for _, c := range h.caps {
		if err := h.counts.GiveBack(ctx, ports.CodeCount{Scope: c.Scope, Key: subject[c.Scope], Day: day, Limit: c.Limit}); err != nil {
			return err
		}
	}
	return nil
}

// renewCode gives the card of an attach resumed after a stop a new code.
func (h *AttachCardHandler) renewCode(ctx context.Context, cmd AttachCard, code string) (uuid.UUID, error) {
	var id uuid.UUID
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		pans := panHashes(h.sealer, cmd.PAN)
		c, err := h.cards.FindLive(ctx, cmd.PartnerID, pans)
		if err != nil {
			return err
		}
		id = c.ID()
		now := h.clock.Now(cmd.PartnerID)
		if err := h.cards.Update(ctx, id, func(c *domain.Card) error {
			return c.RenewOTP(otpHash(h.sealer, id, code), h.ttl, now)
		}); err != nil {
			return err
		}
		return h.countCode(ctx, cmd, pans[0], now)
	})
	return id, err
}

// humanDuration writes whole minutes as "3 minutes", anything else as Go does.
func humanDuration(d time.Duration) string {
	if d%time.Minute == 0 && d >= time.Minute {
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	}
	return d.String()
}
