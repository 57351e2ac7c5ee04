package httpgw

import _ "embed"

// Protocol is the protocol's OpenAPI document (gateway.yaml), for a bank team to build its side
// against and for the tests that hold the adapters and the stub to it.
//
//go:embed gateway.yaml
var Protocol []byte
