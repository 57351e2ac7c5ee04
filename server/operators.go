package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// operatorCmd manages the operator console's accounts (docs/console.md).
func operatorCmd(o options) *cobra.Command {
	cmd := &cobra.Command{Use: "operator", Short: "Manage the operator console's accounts (the bank's staff)"}
	var name, role string
	var asJSON bool
	one := func(c *cobra.Command) *cobra.Command {
		c.Args = func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 1:
				name = args[0]
			case name == "":
				return errors.New("the operator's NAME is required (an argument, or --name)")
			}
			return nil
		}
		c.Flags().StringVar(&name, "name", "", "the operator's login name")
		return c
	}
	password := func(what, pw string) error {
		if asJSON {
			return json.NewEncoder(os.Stdout).Encode(map[string]string{"name": name, "password": pw})
		}
		fmt.Printf("operator %q %s\none-time password (shown once; it must be changed at the first login): %s\n", name, what, pw)
		return nil
	}
	create := one(&cobra.Command{
		Use:   "create NAME --role viewer|officer|admin",
		Short: "Create an operator and print a one-time password",
		RunE: func(c *cobra.Command, _ []string) error {
			r, err := domain.ParseRole(role)
			if err != nil {
				return usageError{err}
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				pw, err := in.console.Operators.CreateOperator.Handle(ctx, appconsole.CLIActor, appconsole.CreateOperator{Name: name, Role: r})
				if err != nil {
					return err
				}
				return password("created", pw)
			})
		},
	})
	create.Flags().StringVar(&role, "role", "", "viewer (reads), officer (also acts, reveals, proposes and approves) or admin (also manages partners)")
	_ = create.MarkFlagRequired("role")
	create.Flags().BoolVar(&asJSON, "json", false, `print {"name", "password"} as JSON`)

	reset := one(&cobra.Command{
		Use:   "reset-password NAME",
		Short: "Give an operator a new one-time password and end their sessions (their second factor stays)",
		Long: `Gives an operator a new one-time password, to be changed at their next login, and ends their
sessions. Their second factor stays: they still log in with its code (a password alone logs no
one in as them). There is no lockout to lift: wrong passwords are throttled per name and address,
and a wait lasts at most 15 minutes; this command does not end one. A lost second factor is
reset-second-factor's.`,
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				pw, err := in.console.Operators.ResetOperatorPassword.Handle(ctx, appconsole.CLIActor, appconsole.ResetOperatorPassword{Name: name})
				if err != nil {
					return err
				}
				return password("reset", pw)
			})
		},
	})
	reset.Flags().BoolVar(&asJSON, "json", false, `print {"name", "password"} as JSON`)

	resetFactor := one(&cobra.Command{
		Use:   "reset-second-factor NAME",
		Short: "Break glass: remove an operator's second factor at once, without a second admin",
		Long: `Removes an operator's second factor (their authenticator app's secret) and recovery codes at
once and ends their sessions: they enrol a new one at their next login. This is the break glass,
for whoever holds the host when no second admin can approve a reset in the console (where a reset
waits for one). It is audited as operator.second_factor.break_glass by cli (docs/operations.md).`,
		RunE: func(c *cobra.Command, _ []string) error {
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if _, err := in.console.Operators.ResetSecondFactor.Handle(ctx, appconsole.CLIActor,
					appconsole.ResetSecondFactor{Name: name}); err != nil {
					return err
				}
				fmt.Printf("operator %q: second factor removed (break glass, audited); they enrol a new one at their next login\n", name)
				return nil
			})
		},
	})

	disabled := func(disable bool) *cobra.Command {
		verb, short := "enable", "Enable a disabled operator again"
		if disable {
			verb, short = "disable", "Disable an operator: their sessions end at once"
		}
		return one(&cobra.Command{
			Use:   verb + " NAME",
			Short: short,
			RunE: func(c *cobra.Command, _ []string) error {
				return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
					err := in.console.Operators.SetOperatorDisabled.Handle(ctx, appconsole.CLIActor, appconsole.SetOperatorDisabled{Name: name, Disabled: disable})
					if err != nil {
						return err
					}
					fmt.Printf("operator %q %sd\n", name, verb)
					return nil
				})
			},
		})
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List operators",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return readOnly(c.Context(), o, func(ctx context.Context, in cli) error {
				list, err := in.console.Operators.ListOperators.Handle(ctx, appconsole.CLIActor)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "NAME\tROLE\tSTATUS\tSECOND FACTOR\tCREATED")
				for _, o := range list.Operators {
					status := "active"
					switch g := o.Grant(); {
					case o.Disabled():
						status = "disabled"
					case g.NewOperator:
						status = "awaiting a second admin (asked by " + g.RequestedBy + ")"
					case g.ResetSecondFactor:
						status = "second factor reset awaiting a second admin (asked by " + g.RequestedBy + ")"
					case g.Pending():
						status = "role " + string(g.Role) + " awaiting a second admin (asked by " + g.RequestedBy + ")"
					case o.MustChangePassword():
						status = "one-time password"
					}
					factor := "none yet"
					if at, ok := list.Enrolled[o.ID()]; ok {
						factor = "since " + at.In(domain.Tashkent).Format(time.RFC3339)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", shownName(o.Name()), o.Role(), status, factor, o.State().CreatedAt.In(domain.Tashkent).Format(time.RFC3339))
				}
				return w.Flush()
			})
		},
	}
	setRole := one(&cobra.Command{
		Use:   "set-role NAME --role viewer|officer|admin",
		Short: "Give an operator another role at once (in the console a higher role waits for a second admin; here it is audited as cli)",
		RunE: func(c *cobra.Command, _ []string) error {
			r, err := domain.ParseRole(role)
			if err != nil {
				return usageError{err}
			}
			return withDB(c.Context(), o, func(ctx context.Context, in cli) error {
				if _, err := in.console.Operators.ChangeRole.Handle(ctx, appconsole.CLIActor,
					appconsole.ChangeOperatorRole{Name: name, Role: r}); err != nil {
					return err
				}
				fmt.Printf("operator %q is %s\n", name, r)
				return nil
			})
		},
	})
	setRole.Flags().StringVar(&role, "role", "", "viewer, officer or admin")
	_ = setRole.MarkFlagRequired("role")
	cmd.AddCommand(create, list, disabled(true), disabled(false), reset, resetFactor, setRole)
	return cmd
}

// shownName is an operator's name as the command line prints it: as it is when it follows the
// rule for names (domain.ParseOperatorName), else Go-quoted in ASCII ("off1\u200b",
// "adm1\nforged"), so that a name given before the rule can neither pass for another nor
// break a line.
func shownName(name string) string {
	if n, err := domain.ParseOperatorName(name); err == nil && n == name {
		return name
	}
	return strconv.QuoteToASCII(name)
}

// operatorsToRename are the operators whose names break the rule for names, as shownName
// prints them. They were named before the rule and still log in; the bank gives each person a
// new operator under a valid name and disables the old one.
func operatorsToRename(ctx context.Context, uc appconsole.Console) ([]string, error) {
	list, err := uc.Operators.ListOperators.Handle(ctx, appconsole.CLIActor)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range list.Operators {
		if shown := shownName(o.Name()); shown != o.Name() {
			out = append(out, shown)
		}
	}
	return out, nil
}

// reportOperatorsToRename prints one line per operator to rename.
func reportOperatorsToRename(names []string) {
	for _, n := range names {
		fmt.Printf("operator %s: the name breaks the rule (%v); it still logs in: create this person an operator under a valid name, then disable this one\n",
			n, domain.ErrOperatorName)
	}
}
