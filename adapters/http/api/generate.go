// Package api holds the request and response types of tiyin's HTTP API, generated from the
// OpenAPI document (adapters/http/openapi.yaml) so that code and document cannot drift.
package api

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../openapi.yaml

//go:generate go run ../../../tools/postman -in ../openapi.yaml -o ../../../postman/tiyin.postman_collection.json
