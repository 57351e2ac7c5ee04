package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tiyin/tiyin/adapters/observe"
)

// measure is River middleware that counts every job by kind and outcome and times it.
type measure struct {
	river.MiddlewareDefaults
	m *observe.Metrics
}

func (w *measure) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	start := time.Now()
	err := doInner(ctx)
	outcome := "ok"
	var snooze *rivertype.JobSnoozeError
	switch {
	case errors.As(err, &snooze):
		outcome = "snoozed"
	case err != nil:
		outcome = "error"
	}
	w.m.Job(job.Kind, outcome, time.Since(start))
	return err
}
