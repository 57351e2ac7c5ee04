package jobs

import (
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// Module provides the work queue (as ports.WorkQueue) and the job runner.
var Module = fx.Module("jobs",
	fx.Provide(
		NewQueue,
		func(q *Queue) ports.WorkQueue { return q },
		NewRunner,
	),
)
