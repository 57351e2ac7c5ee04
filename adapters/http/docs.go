package http

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// The API reference page: Redoc (npm package redoc, bundles/redoc.standalone.js, MIT licence in
// docs/redoc.LICENSE) rendering /openapi.yaml. Everything is served from the binary, so the page
// works offline; `make docs-assets` fetches the bundle again.
var (
	//go:embed docs/index.html
	docsPage []byte
	//go:embed docs/redoc.standalone.js
	docsBundle []byte
)

// The try-it console: Stoplight Elements (npm @stoplight/elements, web-components.min.js and
// styles.min.css, Apache-2.0 licence in docs/elements.LICENSE) on the same document, sending
// the calls to this server from the browser with the key the reader types in. Served from the
// binary too; `make docs-assets` fetches it again.
var (
	//go:embed docs/try.html
	tryPage []byte
	//go:embed docs/elements.web-components.min.js
	tryBundle []byte
	//go:embed docs/elements.styles.min.css
	tryStyles []byte
)

// docsCSP keeps the page to what tiyin serves: no CDN, no third-party request.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"

func (s *Server) docsRoutes(e *echo.Echo) {
	for path, body := range map[string][]byte{"/docs": docsPage, "/docs/try": tryPage} {
		public(e, path, func(c echo.Context) error {
			c.Response().Header().Set("Content-Security-Policy", docsCSP)
			return c.HTMLBlob(http.StatusOK, body)
		})
	}
	// A trailing slash is the same page's address as a person types it: sent to the page, not
	// asked for a key.
	for _, path := range []string{"/docs", "/docs/try"} {
		public(e, path+"/", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, path) })
	}
	for path, a := range map[string]struct {
		typ  string
		body []byte
	}{
		"/docs/redoc.standalone.js":            {"text/javascript; charset=utf-8", docsBundle},
		"/docs/elements.web-components.min.js": {"text/javascript; charset=utf-8", tryBundle},
		"/docs/elements.styles.min.css":        {"text/css; charset=utf-8", tryStyles},
	} {
		public(e, path, func(c echo.Context) error {
			c.Response().Header().Set("Cache-Control", "public, max-age=86400")
			return c.Blob(http.StatusOK, a.typ, a.body)
		})
	}
}
