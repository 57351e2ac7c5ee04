// Command tiyin is the banking core: the HTTP API with its background workers (serve), schema
// migrations (migrate), partner administration (partner) and the rest of the command line.
// It is package server with no options: a bank that replaces a gateway adapter in Go builds
// its own main the same way (docs/gateways.md).
package main

import "github.com/tiyin/tiyin/server"

func main() { server.Main() }
