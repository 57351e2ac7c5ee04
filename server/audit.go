package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/ports"
)

// auditCmd checks the operator console's audit log and anchors it outside the database
// (docs/console.md, "The audit log"; docs/operations.md, "Anchoring the audit log").
func auditCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Check the operator console's audit log, and anchor it outside the database"}
	var anchor string
	verify := &cobra.Command{
		Use:   "verify [--anchor SEQ:HASH]",
		Short: "Verify the audit log's chain, its start and its verifications; names the first broken entry",
		Long: "Verify the audit log: the entries written before the chain began are those recorded when it began,\n" +
			"every later entry is chained and matches its chain, every verification matches its seal and its own\n" +
			"line is in the log (and the other way round), and the entries each verification saw are still there.\n" +
			"Keeps the result, sealed, with a line in the log. With --anchor, a head printed by `tiyin audit\n" +
			"checkpoint`, it also proves that the log still holds that head and everything before it unchanged.\n" +
			"Exits 1 naming what it found broken.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var head *ports.AuditHead
			if anchor != "" {
				h, err := parseAnchor(anchor)
				if err != nil {
					return usageError{err}
				}
				head = &h
			}
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				if in.db.Sealer == nil {
					return errNoDataKey
				}
				v, err := in.console.Actions.VerifyAudit.Handle(ctx, appconsole.CLIActor, appconsole.VerifyAudit{Anchor: head})
				if err != nil {
					return err
				}
				fmt.Printf("%d entries, %d chained (those before the chain began carry none), last #%d\n", v.Entries, v.Chained, v.LastID)
				if !v.Intact() {
					return errors.New("audit log broken: " + v.Problem)
				}
				if head != nil {
					fmt.Printf("anchor %s holds: entry #%d and every entry before it are as they were at the checkpoint\n", head, head.Seq)
				}
				fmt.Println("audit log intact")
				return nil
			})
		},
	}
	verify.Flags().StringVar(&anchor, "anchor", "", "a head printed by tiyin audit checkpoint (SEQ:HASH) that the log must still hold unchanged")
	checkpoint := &cobra.Command{
		Use:   "checkpoint",
		Short: "Print the audit log's head (SEQ:HASH) and send it out of the database's reach: a warn log line, and TIYIN_AUDIT_CHECKPOINT_URL",
		Long: "Print the audit log's head, SEQ:HASH (the last entry's number and a digest of it, every entry before it\n" +
			"and where the chain began), and send it where the database's owner cannot change it: always a warn line\n" +
			"of the log (message audit.checkpoint), and a JSON POST to TIYIN_AUDIT_CHECKPOINT_URL when it is set.\n" +
			"Exits 1 when the POST fails or is not answered 2xx (the log line is written first). Keep the heads:\n" +
			"`tiyin audit verify --anchor SEQ:HASH` proves the log still holds one.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				if in.db.Sealer == nil {
					return errNoDataKey
				}
				head, err := in.console.Actions.CheckpointAudit.Handle(ctx, appconsole.CLIActor)
				if head.Hash != nil {
					fmt.Println(head)
				}
				return err
			})
		},
	}
	cmd.AddCommand(verify, checkpoint)
	return cmd
}

// parseAnchor reads a head as checkpoints print it: SEQ:HASH, an entry's number and 64 hex
// digits.
func parseAnchor(s string) (ports.AuditHead, error) {
	seq, digits, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	h, hexErr := hex.DecodeString(digits)
	if !ok || err != nil || n < 0 || hexErr != nil || len(h) != sha256.Size {
		return ports.AuditHead{}, fmt.Errorf("--anchor %q: want SEQ:HASH as tiyin audit checkpoint prints it (an entry's number, a colon, 64 hex digits)", s)
	}
	return ports.AuditHead{Seq: n, Hash: h}, nil
}
