package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/application"
)

// auditCmd checks the operator console's audit log (docs/console.md).
func auditCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Check the operator console's audit log"}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify",
		Short: "Verify the audit log's chain: every entry as written, none removed or inserted; names the first broken entry",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if in.db.Sealer == nil {
					return errNoDataKey
				}
				v, err := in.app.Console.Actions.VerifyAudit.Handle(ctx, application.CLIActor)
				if err != nil {
					return err
				}
				fmt.Printf("%d entries, %d chained (those before the chain began carry none), last #%d\n", v.Entries, v.Chained, v.LastID)
				if !v.Intact() {
					return errors.New("audit log broken: " + v.Problem)
				}
				fmt.Println("audit log intact")
				return nil
			})
		},
	})
	return cmd
}
