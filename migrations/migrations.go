// Package migrations embeds tiyin's schema, one goose migration set per SQL dialect.
package migrations

import "embed"

// FS holds postgres/*.sql and sqlite/*.sql.
//
//go:embed postgres/*.sql sqlite/*.sql
var FS embed.FS
