package observe

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/ports"
)

// CheckpointConfig says where the audit log's heads go besides the service's log.
type CheckpointConfig struct {
	// URL receives each head as a JSON POST (TIYIN_AUDIT_CHECKPOINT_URL); empty: the log
	// line alone.
	URL string
	// Token, when set, is sent as a bearer token (TIYIN_AUDIT_CHECKPOINT_TOKEN).
	Token string
	// Timeout bounds the POST.
	Timeout time.Duration
}

// CheckpointSender implements ports.AuditCheckpointSender: each head is first a warn line of
// the service's log, message audit.checkpoint (docs/operations.md, "Logs"), then, when the
// bank gave a URL, a POST of it to its SIEM. The line is written whatever the POST does; a
// POST that fails or is not answered 2xx is the send's error.
type CheckpointSender struct {
	log    *zap.Logger
	cfg    CheckpointConfig
	client *http.Client
}

// NewCheckpointSender returns the sender on the service's log. It follows no redirect: the
// head goes to the URL the bank configured, nowhere else.
func NewCheckpointSender(log *zap.Logger, cfg CheckpointConfig) *CheckpointSender {
	return &CheckpointSender{log: log, cfg: cfg, client: &http.Client{Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// checkpointEvent is the line's message and the POST's event.
const checkpointEvent = "audit.checkpoint"

// Send implements ports.AuditCheckpointSender. A log that drops warn lines
// (TIYIN_LOG_LEVEL=error) would lose the checkpoint: the send then fails before anything.
func (s *CheckpointSender) Send(ctx context.Context, h ports.AuditHead) error {
	line := s.log.Check(zap.WarnLevel, checkpointEvent)
	if line == nil {
		return errors.New("the log drops warn lines (TIYIN_LOG_LEVEL=error), so it would lose the checkpoint's line: set warn or below")
	}
	line.Write(zap.String("event", checkpointEvent), zap.String("head", h.String()), zap.Int64("seq", h.Seq),
		zap.String("hash", hex.EncodeToString(h.Hash)))
	if s.cfg.URL == "" {
		return nil
	}
	return s.post(ctx, h)
}

// post sends the head to the configured URL as {"event","head","seq","hash","at"}.
func (s *CheckpointSender) post(ctx context.Context, h ports.AuditHead) error {
	body, err := json.Marshal(struct {
		Event string    `json:"event"`
		Head  string    `json:"head"`
		Seq   int64     `json:"seq"`
		Hash  string    `json:"hash"`
		At    time.Time `json:"at"`
	}{checkpointEvent, h.String(), h.Seq, hex.EncodeToString(h.Hash), time.Now().UTC()})
	if err != nil {
		return err
	}
	u, err := url.Parse(s.cfg.URL)
	if err != nil {
		return fmt.Errorf("TIYIN_AUDIT_CHECKPOINT_URL: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("TIYIN_AUDIT_CHECKPOINT_URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL's path and query stay out of the message
		}
		return fmt.Errorf("the checkpoint was not sent to %s (TIYIN_AUDIT_CHECKPOINT_URL): %w", u.Host, err)
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the checkpoint was not taken by %s (TIYIN_AUDIT_CHECKPOINT_URL): it answered %s", u.Host, resp.Status)
	}
	return nil
}
