// Command tiyin is the banking core: the HTTP API with its background workers (serve), schema
// migrations (migrate), partner administration (partner) and the rest of the command line.
// It is package server with no options, and a bank that replaces a gateway adapter in Go builds
// its own main the same way (docs/gateways.md), plus `tiyin demo` (package demo), a walk
// through a running sandbox that only this binary carries.
package main

import (
	"os"

	"github.com/tiyin/tiyin/cmd/tiyin/demo"
	"github.com/tiyin/tiyin/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "demo" {
		os.Exit(demo.Run(os.Args[2:]))
	}
	server.Main()
}
