package store

import (
	"reflect"
	"strings"
	"testing"
)

// TestApplicationColumnsAreTheModels: the hot read's column list and scan targets are the
// model's columns, every one, in its order: a column added to the model and not to the list
// fails here, not as a half-read application.
func TestApplicationColumnsAreTheModels(t *testing.T) {
	var m applicationModel
	typ := reflect.TypeOf(m)
	columns := strings.Split(applicationColumns, ", ")
	fields := m.fields()
	if len(columns) != typ.NumField() || len(fields) != typ.NumField() {
		t.Fatalf("%d columns, %d scan targets, %d model fields", len(columns), len(fields), typ.NumField())
	}
	v := reflect.ValueOf(&m).Elem()
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("gorm")
		want := strings.TrimPrefix(strings.SplitN(tag, ";", 2)[0], "column:")
		if columns[i] != want {
			t.Errorf("column %d is %q, the model's field %s is %q", i, columns[i], typ.Field(i).Name, want)
		}
		if fields[i] != v.Field(i).Addr().Interface() {
			t.Errorf("scan target %d is not the field %s", i, typ.Field(i).Name)
		}
	}
}

// Each summary column is scanned into the model's field of that column.
func TestSummaryColumnsAreTheModels(t *testing.T) {
	var m applicationModel
	typ := reflect.TypeOf(m)
	v := reflect.ValueOf(&m).Elem()
	byColumn := map[string]any{}
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("gorm")
		byColumn[strings.TrimPrefix(strings.SplitN(tag, ";", 2)[0], "column:")] = v.Field(i).Addr().Interface()
	}
	columns, fields := strings.Split(summaryColumns, ", "), m.summaryFields()
	if len(columns) != len(fields) {
		t.Fatalf("%d columns, %d scan targets", len(columns), len(fields))
	}
	for i, c := range columns {
		if want, ok := byColumn[c]; !ok || fields[i] != want {
			t.Errorf("summary column %d %q is not scanned into the model's field of that column", i, c)
		}
	}
}
