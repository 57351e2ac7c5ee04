package http

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

func (s *Server) registerApplication(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.RegisterApplicationParams](raw, &fs)
	extID, err := parseUUID(in.ExternalId)
	fs.Check("params.externalId", err)
	phone, err := domain.ParsePhone(in.PhoneNumber)
	fs.Check("params.phoneNumber", err)
	cd, err := s.clientData(p, in.ClientData)
	fs.Check("params.clientData", err)
	if !in.IsAgreementAccepted {
		fs.Add("params.isAgreementAccepted", "must be true")
	}
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Loans.RegisterApplication.Handle(ctx, w.call(), application.RegisterApplication{
		PartnerID: p.ID, ExternalID: extID, Phone: phone, ClientData: cd, AgreementAccepted: true,
	})
	return rendered(reply, err, func(id uuid.UUID) any {
		return api.RegisterApplicationResult{ApplicationId: id.String(), Message: "Application registered; pre-scoring started"}
	})
}

func (s *Server) cancelApplication(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.CancelApplicationParams](raw, &fs)
	id, err := parseUUID(in.ApplicationId)
	fs.Check("params.applicationId", err)
	initiator, err := domain.ParseCancelInitiator(string(in.Initiator))
	fs.Check("params.initiator", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Loans.CancelApplication.Handle(ctx, w.call(), application.CancelApplication{PartnerID: p.ID, ApplicationID: id, Initiator: initiator})
	return rendered(reply, err, func(struct{}) any {
		return api.CancelApplicationResult{ApplicationId: id.String(), Message: "Application canceled"}
	})
}

func (s *Server) verifyApplication(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.VerifyApplicationParams](raw, &fs)
	id, err := parseUUID(in.ApplicationId)
	fs.Check("params.applicationId", err)
	amount, err := domain.ParseAmount(in.Amount)
	fs.Check("params.amount", err)
	percent, err := domain.ParsePercent(string(in.Percent))
	fs.Check("params.percent", err)
	if in.MonthPeriod < 0 {
		fs.Add("params.monthPeriod", "must be 0 or more")
	}
	backup, err := domain.ParsePhone(in.BackupPhone)
	fs.Check("params.backupPhone", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Loans.VerifyApplication.Handle(ctx, w.call(), application.VerifyApplication{PartnerID: p.ID,
		ApplicationID: id, Offer: domain.Offer{Amount: amount, Percent: percent, MonthPeriod: in.MonthPeriod, BackupPhone: backup}})
	return rendered(reply, err, verifyResult)
}

func verifyResult(r application.VerifyResult) api.VerifyApplicationResult {
	switch {
	case r.Rejected:
		return api.VerifyApplicationResult{Message: "Offer declined by post-scoring; the application is REJECTED", PhoneNumber: ""}
	case r.PhoneCallRequired:
		return api.VerifyApplicationResult{Message: "Offer accepted; the client must call the bank to complete verification",
			PhoneNumber: r.CallCentrePhone, PhoneCallRequired: true}
	}
	return api.VerifyApplicationResult{Message: "Offer accepted; no phone call needed, issue may start"}
}

func (s *Server) issueApplication(w write) (written, error) {
	ctx, p, raw := w.ctx(), w.partner, w.params()
	var fs domain.Fieldset
	in := decodeParams[api.IssueApplicationParams](raw, &fs)
	id, err := parseUUID(in.ApplicationId)
	fs.Check("params.applicationId", err)
	cd, err := s.clientData(p, in.ClientData)
	fs.Check("params.clientData", err)
	if err := fs.Err(); err != nil {
		return written{}, err
	}
	reply, err := s.d.App.Loans.IssueApplication.Handle(ctx, w.call(), application.IssueApplication{PartnerID: p.ID, ApplicationID: id, ClientData: cd})
	return rendered(reply, err, func(struct{}) any {
		return api.IssueApplicationResult{Message: "Loan issuance started; follow it with /microloans/applications/info"}
	})
}

// applicationIDParams reads params that hold only an applicationId (info calls, the sandbox
// call completion).
func applicationIDParams(raw json.RawMessage) (uuid.UUID, error) {
	var fs domain.Fieldset
	in := decodeParams[api.GetApplicationParams](raw, &fs)
	id, err := parseUUID(in.ApplicationId)
	fs.Check("params.applicationId", err)
	return id, fs.Err()
}

func (s *Server) getApplication(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	id, err := applicationIDParams(raw)
	if err != nil {
		return nil, err
	}
	a, err := s.d.App.Loans.GetApplication.Handle(ctx, application.GetApplication{PartnerID: p.ID, ApplicationID: id})
	if err != nil {
		return nil, err
	}
	return applicationResult(a), nil
}

func (s *Server) findApplication(ctx context.Context, p domain.Partner, raw json.RawMessage) (any, error) {
	var fs domain.Fieldset
	in := decodeParams[api.FindApplicationParams](raw, &fs)
	ext, err := parseUUID(in.ExternalId)
	fs.Check("params.externalId", err)
	if err := fs.Err(); err != nil {
		return nil, err
	}
	a, err := s.d.App.Loans.FindApplication.Handle(ctx, application.FindApplication{PartnerID: p.ID, ExternalID: ext})
	if err != nil {
		return nil, err
	}
	return applicationResult(a), nil
}

func applicationResult(a domain.ApplicationSummary) api.GetApplicationResult {
	r := api.GetApplicationResult{ApplicationId: a.ID.String(), ExternalId: a.ExternalID.String(),
		Status: api.ApplicationStatus(a.Status.String()), LastTask: api.LastTaskOf(a.Stage)}
	if pr := a.PreScore; pr != nil {
		r.PreScoreResult = &api.PreScoreResult{ExternalId: a.ExternalID.String(), AmountLimit: pr.AmountLimit,
			Percent: pr.Percent.Float(), MonthPeriod: pr.MonthPeriod}
	}
	return r
}

// clientData validates clientData against today's date in Tashkent.
func (s *Server) clientData(partner domain.Partner, in api.ClientData) (domain.ClientData, error) {
	opt := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	var gender string
	if in.Gender != nil {
		gender = string(*in.Gender)
	}
	return domain.ParseClientData(domain.ClientDataInput{
		PINFL: in.Pinfl, INN: opt(in.Inn), LastName: in.LastName, FirstName: in.FirstName,
		MiddleName: opt(in.MiddleName), BirthDate: in.BirthDate, Gender: gender,
		DocumentType: string(in.Document.Type), DocumentSeries: in.Document.Series,
		DocumentNumber: in.Document.Number, DocumentIssuedBy: in.Document.IssuedBy,
		DocumentIssued: in.Document.IssuedDate, DocumentExpiry: in.Document.ExpiryDate,
		Region: in.Address.Region, District: in.Address.District, Address: in.Address.Address,
		Email: opt(in.Email), Phone: in.Phone,
	}, domain.BusinessDate(s.d.Clock.Now(partner.ID)))
}
