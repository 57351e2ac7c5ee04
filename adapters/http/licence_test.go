package http_test

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestTheLicenceIsApache: the project is licensed under Apache-2.0, and the documents a
// partner's or a bank's legal review reads first (the API document served at /openapi.yaml and
// the gateway protocol) name the same licence.
func TestTheLicenceIsApache(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../../LICENSE")
	if err != nil || !strings.Contains(string(text), "Apache License") || !strings.Contains(string(text), "Version 2.0, January 2004") {
		t.Fatalf("LICENSE is not the Apache License 2.0 (%v)", err)
	}
	for _, doc := range []string{"openapi.yaml", "../gateway/httpgw/gateway.yaml"} {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Info struct {
				License struct{ Name, URL string } `yaml:"license"`
			} `yaml:"info"`
		}
		if err := yaml.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		if l := d.Info.License; l.Name != "Apache-2.0" || !strings.Contains(l.URL, "apache.org/licenses/LICENSE-2.0") {
			t.Fatalf("%s names the licence %+v, want Apache-2.0", doc, l)
		}
	}
}
