package server

import (
	"context"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/ports"
)

// TestTheCLIRunsTheServersGraphWithoutItsListener: a one-shot command gets every use case of
// the server's own graph, the bank's Go adapters included, and neither listens on the API's
// port (taken here) nor needs it.
func TestTheCLIRunsTheServersGraphWithoutItsListener(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "tiyin.db"))
	t.Setenv("TIYIN_HTTP_ADDR", taken.Addr().String())
	built := false
	o := applied([]Option{WithScoring(func(Deps) (ports.Scoring, error) { built = true; return sandbox.NewScoring(), nil })})
	ran := false
	err = openDB(context.Background(), o, schemaApply, func(_ context.Context, in cli) error {
		ran = true
		if in.db == nil || in.app == nil {
			t.Fatal("no database or use cases")
		}
		for _, missing := range nilFields(reflect.ValueOf(*in.app), "App") {
			t.Errorf("%s is nil", missing)
		}
		return nil
	})
	if err != nil || !ran {
		t.Fatalf("openDB: %v (ran: %v)", err, ran)
	}
	if !built {
		t.Error("the bank's Go adapter was not built into the command's graph")
	}
}

// nilFields names the nil pointers and interfaces among v's fields, through nested structs.
func nilFields(v reflect.Value, path string) []string {
	var out []string
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Struct:
			out = append(out, nilFields(f, name)...)
		case reflect.Pointer, reflect.Interface:
			if f.IsNil() {
				out = append(out, name)
			}
		}
	}
	return out
}

// TestABadDatabaseURLNamesItsSetting: a command given a database it cannot reach, or a URL it
// cannot read, says TIYIN_DATABASE_URL is the setting to fix, never the password.
func TestABadDatabaseURLNamesItsSetting(t *testing.T) {
	for _, u := range []string{"postgres://tiyin:s3cret-pw@127.0.0.1:1/tiyin?connect_timeout=2", "postgres://tiyin:s3cret-pw@%zz/tiyin"} {
		t.Setenv("TIYIN_DATABASE_URL", u)
		t.Setenv("TIYIN_SANDBOX", "true")
		err := openDB(context.Background(), applied(nil), schemaApply, func(context.Context, cli) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "TIYIN_DATABASE_URL") || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: %v", u, err)
		}
	}
}
