module github.com/tiyin/tiyin/client

// The oldest Go the generated code's runtime (oapi-codegen/runtime v1.8.0) takes: a partner's
// backend need not follow the server's Go.
go 1.24.0

require (
	github.com/google/uuid v1.6.0
	github.com/oapi-codegen/runtime v1.8.0
)

require github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
