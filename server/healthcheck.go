package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// healthcheckCmd asks a running tiyin's /readyz, for a container's HEALTHCHECK: the image is
// distroless, with no curl or shell, so the binary asks itself.
func healthcheckCmd() *cobra.Command {
	var target string
	c := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when the tiyin on TIYIN_HTTP_ADDR (this host) answers /readyz, 1 otherwise (a container's HEALTHCHECK)",
		Long: "Asks /readyz of the tiyin serve runs on this host: --url when given, else TIYIN_HTTP_ADDR read as serve\n" +
			"reads it, else, when that is not set, the TIYIN_URL of the export line serve prints (a second terminal\n" +
			"beside `make run`), else :8080. Exits 0 when it answers 200, 1 otherwise: the container image's HEALTHCHECK.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				target = healthTarget()
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
			if err != nil {
				return fmt.Errorf("--url %q: %w", target, err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("%s: %w", target, err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s answered %d: not ready", target, resp.StatusCode)
			}
			fmt.Println("ready")
			return nil
		},
	}
	c.Flags().StringVar(&target, "url", "", "the readiness URL (default: /readyz on this host's TIYIN_HTTP_ADDR port, else TIYIN_URL's, else :8080)")
	return c
}

// healthTarget is the readiness URL healthcheck asks without --url: on TIYIN_HTTP_ADDR as serve
// reads it (readSettings), or, when that is not set, on the TIYIN_URL that serve's banner tells
// a second terminal to export, so the check follows `TIYIN_HTTP_ADDR=:8081 make run` there too.
func healthTarget() string {
	st, _ := readSettings() // another setting's problem is serve's to report, not the check's
	if os.Getenv("TIYIN_HTTP_ADDR") == "" {
		if u, err := url.Parse(os.Getenv("TIYIN_URL")); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return u.Scheme + "://" + u.Host + "/readyz"
		}
	}
	return readyURL(st.HTTPAddr)
}

// readyURL is /readyz on the loopback address of the listener addr (":8080", "0.0.0.0:80").
func readyURL(addr string) string {
	if addr == "" {
		addr = ":8080"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://127.0.0.1:8080/readyz"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz"
}
