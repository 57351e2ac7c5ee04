// Package client is a typed Go client of tiyin's partner API, generated from the API document
// (adapters/http/openapi.yaml, also served at /openapi.yaml) with oapi-codegen: a partner's Go
// backend imports it instead of writing the calls by hand.
//
//	c, err := client.NewClientWithResponses("https://tiyin.bank.uz", client.WithRequestEditorFn(
//		func(_ context.Context, r *http.Request) error {
//			r.Header.Set("Authorization", "Bearer "+key)
//			return nil
//		}))
//	reply, err := c.GetApplicationWithResponse(ctx, client.GetApplicationRequest{
//		Id: uuid.New(), Params: client.GetApplicationParams{ApplicationId: id}})
//	// reply.JSON200.Result, reply.JSON200.Error
//
// Every call is the envelope {"id", "params"}; the answer's error, when set, carries the code
// (docs/integration.md, "Error codes"). tiyin demo and the end-to-end tests drive tiyin through
// this package, so it cannot fall behind the document.
package client

// The client is a module of its own (so a partner's go.mod takes only it); it is generated from
// the repository's root, whose module has the generator as a tool.
//
//go:generate sh -c "cd .. && go tool oapi-codegen -config client/oapi-codegen.yaml adapters/http/openapi.yaml"
