package server

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tiyin/tiyin/adapters/store"
)

// version and commit are set at build time (make build passes git describe and the commit:
// -ldflags "-X github.com/tiyin/tiyin/server.version=v0.4.0 -X …server.commit=…"); empty, they are what the Go toolchain
// stamped in the binary, if it did.
var version, commit = "", ""

// buildInfo is what a binary knows of its own build.
type buildInfo struct {
	Version, Commit, GoVersion string
	// Modified says the build had changes not committed.
	Modified bool
}

// build reads the binary's build information.
func build() buildInfo {
	b := buildInfo{Version: version, Commit: commit, GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if b.Version == "" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) String() string {
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	if b.Modified {
		commit += ", modified"
	}
	return fmt.Sprintf("tiyin %s (commit %s) %s", b.Version, commit, b.GoVersion)
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tiyin's version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Println(build()) },
	}
}

// describeDatabase names the database the configuration points at, without a password: not
// the user's, nor a ?password= parameter, nor a key=value string's password=.
func describeDatabase(cfg config) string {
	if cfg.DatabaseURL == "" {
		path, err := filepath.Abs(cfg.SQLitePath)
		if err != nil {
			path = cfg.SQLitePath
		}
		return "SQLite " + path
	}
	described, ok := store.RedactedURL(cfg.DatabaseURL)
	if !ok {
		return "PostgreSQL (an unreadable TIYIN_DATABASE_URL)"
	}
	return "PostgreSQL " + described
}
