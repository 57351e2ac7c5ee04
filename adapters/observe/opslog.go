package observe

import (
	"context"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/ports"
)

// OpsLog writes ports.OpsLog's failures as the service's log lines: a warning, an error when
// nothing will try again, each with the partner, the object, the event, the target, the
// attempt and the request id that caused it (docs/operations.md, "Logs").
type OpsLog struct{ log *zap.Logger }

// NewOpsLog returns the failures' log on log.
func NewOpsLog(log *zap.Logger) *OpsLog { return &OpsLog{log: log} }

// Failure implements ports.OpsLog.
func (o *OpsLog) Failure(ctx context.Context, f ports.Failure) {
	fields := []zap.Field{zap.String("event", f.Event), zap.String("partner_id", f.PartnerID.String()),
		zap.String("object", f.Object), zap.String("detail", f.Detail), zap.String("target", f.Target),
		zap.Int("attempt", f.Attempt), zap.Bool("final", f.Final), zap.String("reason", f.Reason)}
	if id := ports.RequestID(ctx); id != "" {
		fields = append(fields, zap.String("request_id", id))
	}
	if f.Final {
		o.log.Error(f.Event, fields...)
		return
	}
	o.log.Warn(f.Event, fields...)
}
