package store

import (
	"reflect"
	"strings"
	"testing"
)

// TestScannedColumnsMatchTheModels holds each hand-written column list to its model: the same
// columns as the model's gorm tags, in field order, and fields pointing at every field in that
// order. A field added to a model and not to its list fails here, not on a read in production.
func TestScannedColumnsMatchTheModels(t *testing.T) {
	cases := []struct {
		name    string
		model   any
		columns string
		fields  func() (any, []any)
	}{
		{"applications", applicationModel{}, applicationColumns, func() (any, []any) { m := &applicationModel{}; return m, m.fields() }},
		{"loans", loanModel{}, loanColumns, func() (any, []any) { m := &loanModel{}; return m, m.fields() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ := reflect.TypeOf(c.model)
			var want []string
			for i := range typ.NumField() {
				for _, part := range strings.Split(typ.Field(i).Tag.Get("gorm"), ";") {
					if col, ok := strings.CutPrefix(part, "column:"); ok {
						want = append(want, col)
					}
				}
			}
			if got := strings.Split(c.columns, ", "); !reflect.DeepEqual(got, want) {
				t.Fatalf("columns\n got %v\nwant %v", got, want)
			}
			m, ptrs := c.fields()
			v := reflect.ValueOf(m).Elem()
			if len(ptrs) != v.NumField() {
				t.Fatalf("fields() has %d pointers for %d fields", len(ptrs), v.NumField())
			}
			for i, p := range ptrs {
				if reflect.ValueOf(p).Pointer() != v.Field(i).Addr().Pointer() {
					t.Errorf("fields()[%d] does not point at %s", i, typ.Field(i).Name)
				}
			}
		})
	}
}
