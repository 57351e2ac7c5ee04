package store

import (
	"reflect"
	"strings"
	"testing"
)

// TestScannedColumnsMatchTheModels holds each model's fields method to the model: a pointer at
// every field, in declaration order, which is the order columnsOf lists the columns in. A field
// added to a model and not to fields fails here, not on a read in production.
func TestScannedColumnsMatchTheModels(t *testing.T) {
	cases := []struct {
		name   string
		fields func() (any, []any)
	}{
		{"applications", func() (any, []any) { m := &applicationModel{}; return m, m.fields() }},
		{"loans", func() (any, []any) { m := &loanModel{}; return m, m.fields() }},
		{"cards", func() (any, []any) { m := &cardModel{}; return m, m.fields() }},
		{"card_orders", func() (any, []any) { m := &cardOrderModel{}; return m, m.fields() }},
		{"repayments", func() (any, []any) { m := &repaymentModel{}; return m, m.fields() }},
		{"transfers", func() (any, []any) { m := &transferModel{}; return m, m.fields() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, ptrs := c.fields()
			v := reflect.ValueOf(m).Elem()
			if len(ptrs) != v.NumField() {
				t.Fatalf("fields() has %d pointers for %d fields", len(ptrs), v.NumField())
			}
			for i, p := range ptrs {
				if reflect.ValueOf(p).Pointer() != v.Field(i).Addr().Pointer() {
					t.Errorf("fields()[%d] does not point at %s", i, v.Type().Field(i).Name)
				}
			}
		})
	}
}

func TestColumnsOfListsTheGormColumnsInFieldOrder(t *testing.T) {
	type row struct {
		ID   string `gorm:"column:id;primaryKey"`
		Name string `gorm:"column:name"`
		At   string `gorm:"column:created_at;autoCreateTime:false"`
	}
	if got, want := columnsOf(row{}), "id, name, created_at"; got != want {
		t.Fatalf("columnsOf = %q, want %q", got, want)
	}
	if got := strings.Count(columnsOf(applicationModel{}), ","); got != reflect.TypeOf(applicationModel{}).NumField()-1 {
		t.Fatalf("applications: %d separators", got)
	}
}

type testRow struct {
	ID   string  `gorm:"column:id;primaryKey"`
	Name *string `gorm:"column:name"`
	N    int64   `gorm:"column:n"`
}

func (testRow) TableName() string { return "things" }

func (m *testRow) fields() []any { return []any{&m.ID, &m.Name, &m.N} }

type noIDRow struct {
	Name string `gorm:"column:name"`
}

func (noIDRow) TableName() string { return "things" }

func TestTableStatementsWrittenFromTheModel(t *testing.T) {
	tb := tableOf(testRow{})
	for _, c := range []struct{ got, want string }{
		{tb.byID.sql, "SELECT id, name, n FROM things WHERE id = ?"},
		{tb.locked.pg, "SELECT id, name, n FROM things WHERE id = $1 FOR UPDATE"},
		{tb.insert.pg, "INSERT INTO things (id, name, n) VALUES ($1, $2, $3)"},
		{tb.update.pg, "UPDATE things SET name = $1, n = $2 WHERE id = $3"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	name := "x"
	m := &testRow{ID: "a", Name: &name, N: 7}
	if got := tb.insertOf(m).args; !reflect.DeepEqual(got, []any{"a", &name, int64(7)}) {
		t.Errorf("insert args %v", got)
	}
	if got := tb.updateOf(m).args; !reflect.DeepEqual(got, []any{&name, int64(7), "a"}) {
		t.Errorf("update args %v: the id goes last", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a model whose first column is not its id was accepted")
		}
	}()
	tableOf(noIDRow{})
}
