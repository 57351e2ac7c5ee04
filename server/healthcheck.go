package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
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
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				target = readyURL(os.Getenv("TIYIN_HTTP_ADDR"))
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
	c.Flags().StringVar(&target, "url", "", "the readiness URL (default: /readyz on this host's TIYIN_HTTP_ADDR port, :8080)")
	return c
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
