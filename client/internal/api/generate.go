// Package api is the client module's generated layer: the partner API's operations and wire
// types, generated from the API document (adapters/http/openapi.yaml) with oapi-codegen. It is
// internal: partners call package client's hand-written face, which sends every operation
// through this layer and whose tests hold its types to these.
package api

// The client is a module of its own (so a partner's go.mod takes only it); it is generated from
// the repository's root, whose module has the generator as a tool.
//
//go:generate sh -c "cd ../../.. && go tool oapi-codegen -config client/internal/api/oapi-codegen.yaml adapters/http/openapi.yaml"
