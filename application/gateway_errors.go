package application

import (
	"fmt"

	"github.com/tiyin/tiyin/ports"
)

// gatewayError turns a failed synchronous gateway call into the error a partner sees: the
// gateway is unavailable and the same request may be retried.
func gatewayError(err error) error {
	return fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
}
