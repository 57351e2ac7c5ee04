package http_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// The benchmarks call the handler directly (no network) on SQLite. BenchmarkBareEcho is the
// ceiling measured in the same run: an echo handler that only decodes and encodes the envelope.

func benchRequest(b *testing.B, handler http.Handler, key, path, body string) {
	b.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
}

func BenchmarkBareEcho(b *testing.B) {
	e := echo.New()
	e.POST("/x", func(c echo.Context) error {
		var env struct {
			ID     string          `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(c.Request().Body)
		if err := json.Unmarshal(body, &env); err != nil {
			return err
		}
		var p struct{ ApplicationID string }
		_ = json.Unmarshal(env.Params, &p)
		return c.JSON(http.StatusOK, map[string]any{"id": env.ID, "result": map[string]any{"applicationId": p.ApplicationID}, "error": nil})
	})
	body := `{"id":"` + uuid.NewString() + `","params":{"applicationId":"` + uuid.NewString() + `"}}`
	b.ReportAllocs()
	for b.Loop() {
		benchRequest(b, e, "", "/x", body)
	}
}

func BenchmarkApplicationInfo(b *testing.B) {
	h := setupWith(b, false)
	p, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": registerParams()})
	req := httptest.NewRequest(http.MethodPost, "/microloans/applications/pre-scoring/register", strings.NewReader(string(p)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+h.key)
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	var r struct {
		Result struct{ ApplicationID string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &r)
	body := `{"id":"` + uuid.NewString() + `","params":{"applicationId":"` + r.Result.ApplicationID + `"}}`
	b.ReportAllocs()
	for b.Loop() {
		benchRequest(b, h.handler, h.key, "/microloans/applications/info", body)
	}
}

func BenchmarkRegister(b *testing.B) {
	h := setupWith(b, false)
	bodies := make([]string, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if len(bodies) == 0 {
			b.StopTimer()
			for range 1024 {
				p, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": registerParams()})
				bodies = append(bodies, string(p))
			}
			b.StartTimer()
		}
		benchRequest(b, h.handler, h.key, "/microloans/applications/pre-scoring/register", bodies[len(bodies)-1])
		bodies = bodies[:len(bodies)-1]
	}
}
