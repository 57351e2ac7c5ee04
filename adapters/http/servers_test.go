package http_test

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestTheServersDescriptionIsPlainText: /docs/try shows a server's description as it stands,
// Markdown and all, so none holds a backtick (issue 48: "`make run`" showed its quotes).
func TestTheServersDescriptionIsPlainText(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Servers []struct{ URL, Description string } `yaml:"servers"`
	}
	if err := yaml.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Servers) == 0 {
		t.Fatal("openapi.yaml names no server: the check is blind")
	}
	for _, s := range d.Servers {
		if s.Description == "" || strings.Contains(s.Description, "`") {
			t.Errorf("server %s: description %q is empty or holds a backtick, which /docs/try shows as it is", s.URL, s.Description)
		}
	}
}
