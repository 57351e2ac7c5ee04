package server

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/gateway/httpgw"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// gateway is one port's adapter choice: a Go adapter given to package server, else the HTTP
// adapter when its URL is set, else the sandbox.
type gateway struct {
	port, urlVar, tokenVar string
	cfg                    httpgw.Config
	// goAdapter provides the port's Go adapter (WithScoring and the like); nil without one.
	goAdapter fx.Option
}

// The adapters a port can have.
const (
	adapterGo      = "go"
	adapterHTTP    = "http"
	adapterSandbox = "sandbox"
)

// adapter is the kind of adapter the port gets.
func (g gateway) adapter() string {
	switch {
	case g.goAdapter != nil:
		return adapterGo
	case g.cfg.URL != "":
		return adapterHTTP
	}
	return adapterSandbox
}

// withGoAdapters marks the ports given a Go adapter; a port given both a Go adapter and a URL
// is refused, since one of them would be silently ignored.
func withGoAdapters(gs []gateway, goAdapters map[string]fx.Option) ([]gateway, error) {
	out := slices.Clone(gs)
	var both []string
	for i, g := range out {
		out[i].goAdapter = goAdapters[g.port]
		if out[i].goAdapter != nil && g.cfg.URL != "" {
			both = append(both, g.urlVar)
		}
	}
	if len(both) > 0 {
		return nil, fmt.Errorf("%s set, but this build replaces those ports with Go adapters: unset it", strings.Join(both, ", "))
	}
	return out, nil
}

// gatewayPorts lists the ports in the order they are logged and checked.
var gatewayPorts = []struct{ port, prefix string }{
	{"scoring", "TIYIN_SCORING"}, {"core_banking", "TIYIN_CORE_BANKING"}, {"processing", "TIYIN_PROCESSING"},
	{"sms", "TIYIN_SMS"}, {"card_issuer", "TIYIN_CARD_ISSUER"}, {"general_ledger", "TIYIN_GENERAL_LEDGER"},
}

// loadGateways reads TIYIN_<PORT>_URL and TIYIN_<PORT>_TOKEN of every port from the settings.
func loadGateways(st settings) ([]gateway, []error) {
	values := map[string]string{
		"TIYIN_SCORING_URL": st.ScoringURL, "TIYIN_SCORING_TOKEN": st.ScoringToken,
		"TIYIN_CORE_BANKING_URL": st.CoreBankingURL, "TIYIN_CORE_BANKING_TOKEN": st.CoreBankingToken,
		"TIYIN_PROCESSING_URL": st.ProcessingURL, "TIYIN_PROCESSING_TOKEN": st.ProcessingToken,
		"TIYIN_SMS_URL": st.SMSURL, "TIYIN_SMS_TOKEN": st.SMSToken,
		"TIYIN_CARD_ISSUER_URL": st.CardIssuerURL, "TIYIN_CARD_ISSUER_TOKEN": st.CardIssuerToken,
		"TIYIN_GENERAL_LEDGER_URL": st.GeneralLedgerURL, "TIYIN_GENERAL_LEDGER_TOKEN": st.GeneralLedgerToken,
	}
	var (
		out  []gateway
		errs []error
	)
	for _, p := range gatewayPorts {
		g := gateway{port: p.port, urlVar: p.prefix + "_URL", tokenVar: p.prefix + "_TOKEN"}
		g.cfg.URL, g.cfg.Token = values[g.urlVar], values[g.tokenVar]
		if g.cfg.URL != "" {
			u, err := url.Parse(g.cfg.URL)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
				errs = append(errs, fmt.Errorf("%s: want an http(s) URL without credentials (the token goes in %s)", g.urlVar, g.tokenVar))
			}
		}
		out = append(out, g)
	}
	return out, errs
}

// missingGateways names the ports that have no real adapter, and those whose URL is not
// https: outside the sandbox either is a refusal to start.
func missingGateways(gs []gateway) error {
	var missing, plain []string
	for _, g := range gs {
		switch {
		case g.adapter() == adapterSandbox:
			missing = append(missing, fmt.Sprintf("%s (%s)", g.port, g.urlVar))
		case g.adapter() == adapterHTTP && !strings.HasPrefix(strings.ToLower(g.cfg.URL), "https://"):
			plain = append(plain, g.urlVar)
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("TIYIN_SANDBOX=false but these gateways have no real adapter: %s; set their URLs "+
			"or give them Go adapters (docs/gateways.md), or run with TIYIN_SANDBOX=true to use the sandbox gateways", strings.Join(missing, ", ")))
	}
	if len(plain) > 0 {
		errs = append(errs, fmt.Errorf("TIYIN_SANDBOX=false and %s not https: a bank's gateway is called over TLS only",
			strings.Join(plain, ", ")))
	}
	return errors.Join(errs...)
}

// gatewaysModule provides each port's adapter; the sandbox scoring offers scoringPercent.
func gatewaysModule(gs []gateway, scoringPercent domain.Percent) fx.Option {
	byPort := map[string]gateway{}
	for _, g := range gs {
		byPort[g.port] = g
	}
	choose := func(port string, real, fake any) fx.Option {
		switch g := byPort[port]; g.adapter() {
		case adapterGo:
			return g.goAdapter
		case adapterHTTP:
			return fx.Options(fx.Provide(func() httpgw.Config { return g.cfg }, fx.Private), fx.Provide(real))
		}
		return fx.Provide(fake)
	}
	return fx.Options(
		fx.Module("scoring", choose("scoring", fx.Annotate(httpgw.NewScoring, fx.As(new(ports.Scoring))),
			fx.Annotate(func() *sandbox.Scoring { return sandbox.NewScoringAt(scoringPercent) }, fx.As(new(ports.Scoring))))),
		fx.Module("core_banking", choose("core_banking", fx.Annotate(httpgw.NewCoreBanking, fx.As(new(ports.CoreBanking))),
			fx.Annotate(sandbox.NewCoreBankingWith, fx.As(new(ports.CoreBanking))))),
		fx.Module("processing", choose("processing", fx.Annotate(httpgw.NewProcessing, fx.As(new(ports.Processing))),
			fx.Annotate(sandbox.NewProcessingWith, fx.As(new(ports.Processing))))),
		fx.Module("sms", choose("sms", fx.Annotate(httpgw.NewSMSSender, fx.As(new(ports.SMSSender))),
			fx.Annotate(sandbox.NewSMSSender, fx.As(new(ports.SMSSender))))),
		fx.Module("card_issuer", choose("card_issuer", fx.Annotate(httpgw.NewCardIssuer, fx.As(new(ports.CardIssuer))),
			fx.Annotate(sandbox.NewCardIssuer, fx.As(new(ports.CardIssuer))))),
		fx.Module("general_ledger", choose("general_ledger", fx.Annotate(httpgw.NewGeneralLedger, fx.As(new(ports.GeneralLedger))),
			fx.Annotate(sandbox.NewGeneralLedger, fx.As(new(ports.GeneralLedger))))),
	)
}

// logGateways writes one line per port naming the adapter in use.
func logGateways(log *zap.Logger, gs []gateway) {
	for _, g := range gs {
		fields := []zap.Field{zap.String("port", g.port), zap.String("adapter", g.adapter())}
		if g.adapter() == adapterHTTP {
			fields = append(fields, zap.String("url", g.cfg.URL), zap.Bool("token", g.cfg.Token != ""))
		}
		log.Info("gateway", fields...)
	}
}
