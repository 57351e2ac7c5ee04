package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/application"
)

// auditCmd checks the operator console's audit log (docs/console.md, "The audit log").
func auditCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Check the operator console's audit log"}
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Verify the audit log's chain, its start and its verifications; names the first broken entry",
		Long: "Verify the audit log: the entries written before the chain began are those recorded when it began,\n" +
			"every later entry is chained and matches its chain, every verification matches its seal and its own\n" +
			"line is in the log (and the other way round), and the entries each verification saw are still there.\n" +
			"Keeps the result, sealed, with a line in the log. Exits 1 naming what it found broken.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if in.db.Sealer == nil {
					return errNoDataKey
				}
				v, err := in.app.Console.Actions.VerifyAudit.Handle(ctx, application.CLIActor, application.VerifyAudit{})
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
	}
	cmd.AddCommand(verify)
	return cmd
}
