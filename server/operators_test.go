package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// TestResetPasswordHelpSaysThereIsNoLockout: `operator reset-password --help` tells the admin
// there is no lockout to lift, only the console's throttle of wrong passwords per name and
// address, whose wait is at most domain.MaxLoginWait (15 minutes), and that the reset does not
// end a wait (issue 48).
func TestResetPasswordHelpSaysThereIsNoLockout(t *testing.T) {
	status, out, errs := runCLI(t, "operator", "reset-password", "--help")
	help := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"There is no lockout to lift", "throttled per name and address",
		fmt.Sprintf("at most %d minutes", int(domain.MaxLoginWait.Minutes())), "this command does not end one"} {
		if status != 0 || !strings.Contains(help, want) {
			t.Errorf("operator reset-password --help (exit %d) lacks %q:\n%s%s", status, want, out, errs)
		}
	}
}

// TestOperatorsNamedBeforeTheNameRuleAreShownQuoted (issue 46, finding 5): operators named
// before the rule (a zero-width space, a newline, the command line's own name) still log in;
// `tiyin operator list` gives each operator one line, the broken names Go-quoted in ASCII, and
// `tiyin migrate` and `tiyin migrate status` (text and JSON) list them to be renamed.
func TestOperatorsNamedBeforeTheNameRuleAreShownQuoted(t *testing.T) {
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "tiyin.db"))
	legacy := map[string]string{"off1": "off1\u200b", "adm1": "adm1\nforged", "root": "cli"}
	passwords := map[string]string{}
	err := openDB(context.Background(), applied(nil), schemaApply, func(ctx context.Context, in cli) error {
		for _, name := range []string{"off1", "adm1", "root", "dilnoza"} {
			pw, err := in.console.Operators.CreateOperator.Handle(ctx, appconsole.CLIActor, appconsole.CreateOperator{Name: name, Role: domain.RoleViewer})
			if err != nil {
				return err
			}
			passwords[name] = pw
			if old, ok := legacy[name]; ok {
				if err := in.db.Gorm.Exec("UPDATE operators SET name = ? WHERE name = ?", old, name).Error; err != nil {
					return err
				}
			}
		}
		for name, old := range legacy {
			if _, err := in.console.Operators.LogIn.Handle(ctx, appconsole.LogIn{Name: old, Password: passwords[name], Address: "127.0.0.1"}); err != nil {
				t.Errorf("%q cannot log in: %v", old, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	quoted := []string{`"off1\u200b"`, `"adm1\nforged"`, `"cli"`}

	list := stdoutOf(t, "operator", "list")
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 5 {
		t.Errorf("operator list: %d lines for 4 operators and a header:\n%s", len(lines), list)
	}
	for _, q := range append(quoted, "dilnoza ") {
		if !strings.Contains(list, q) {
			t.Errorf("operator list lacks %s:\n%s", q, list)
		}
	}
	for _, args := range [][]string{{"migrate"}, {"migrate", "status"}} {
		out := stdoutOf(t, args...)
		for _, q := range quoted {
			if !strings.Contains(out, "operator "+q+": ") {
				t.Errorf("%s does not report %s:\n%s", strings.Join(args, " "), q, out)
			}
		}
		if strings.Contains(out, "dilnoza") || strings.Contains(out, "\u200b") {
			t.Errorf("%s reports a valid name, or a name unquoted:\n%s", strings.Join(args, " "), out)
		}
	}
	var status struct{ OperatorsToRename []string }
	if err := json.Unmarshal([]byte(stdoutOf(t, "migrate", "status", "--json")), &status); err != nil || len(status.OperatorsToRename) != 3 {
		t.Fatalf("migrate status --json: %+v, %v", status, err)
	}
}

// stdoutOf runs tiyin's command line on args and returns what it printed on stdout; the
// command must succeed.
func stdoutOf(t *testing.T, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	code := Run(args)
	os.Stdout = stdout
	_ = w.Close()
	out := <-done
	if code != 0 {
		t.Fatalf("tiyin %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}
