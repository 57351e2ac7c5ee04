package client_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tiyin/tiyin/client"
)

func TestParsePercent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in         string
		hundredths int64
		text       string
		bad        bool
	}{
		{in: "28", hundredths: 2800, text: "28.00"},
		{in: "28.0", hundredths: 2800, text: "28.00"},
		{in: "28.5", hundredths: 2850, text: "28.50"},
		{in: "83.06", hundredths: 8306, text: "83.06"},
		{in: "99.99", hundredths: 9999, text: "99.99"},
		{in: "0.01", hundredths: 1, text: "0.01"},
		{in: "0", hundredths: 0, text: "0.00"},
		{in: "2.8e1", hundredths: 2800, text: "28.00"},
		{in: "8306E-2", hundredths: 8306, text: "83.06"},
		{in: "28.120", hundredths: 2812, text: "28.12"},
		{in: "-1.5", hundredths: -150, text: "-1.50"},
		{in: "28.125", bad: true},
		{in: "0.001", bad: true},
		{in: "", bad: true},
		{in: "28.", bad: true},
		{in: ".5", bad: true},
		{in: "1/2", bad: true},
		{in: "0x1C", bad: true},
		{in: " 28", bad: true},
		{in: "1e9999", bad: true},
		{in: "99999999999999999999", bad: true},
	} {
		p, err := client.ParsePercent(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: read as %v, want an error", tc.in, p)
			}
			continue
		}
		if err != nil || p.Hundredths() != tc.hundredths || p.String() != tc.text {
			t.Errorf("%q: %d %q %v, want %d %q", tc.in, p.Hundredths(), p, err, tc.hundredths, tc.text)
		}
	}
}

// A percent is a JSON number both ways (a string holding one is read too), and null leaves it.
func TestPercentJSON(t *testing.T) {
	t.Parallel()
	var v struct{ P client.Percent }
	for in, want := range map[string]int64{`{"P":83.06}`: 8306, `{"P":"28.0"}`: 2800, `{"P":null}`: 0, `{}`: 0} {
		v.P = client.Percent{}
		if err := json.Unmarshal([]byte(in), &v); err != nil || v.P.Hundredths() != want {
			t.Errorf("%s: %v %v, want %d", in, v.P, err, want)
		}
	}
	if err := json.Unmarshal([]byte(`{"P":true}`), &v); err == nil {
		t.Error("true read as a percent")
	}
	out, err := json.Marshal(struct{ P client.Percent }{client.MustParsePercent("83.06")})
	if err != nil || string(out) != `{"P":83.06}` {
		t.Errorf("marshal: %s %v", out, err)
	}
}

func TestDate(t *testing.T) {
	t.Parallel()
	d, err := client.ParseDate("1990-05-17")
	if err != nil || d != client.NewDate(1990, time.May, 17) || d.String() != "1990-05-17" || d.IsZero() {
		t.Fatalf("%v %v", d, err)
	}
	if n := client.NewDate(2027, time.February, 29); n != client.NewDate(2027, time.March, 1) {
		t.Errorf("February 29, 2027 normalized to %v", n)
	}
	tashkent := time.FixedZone("UZT", 5*3600)
	at := time.Date(2026, 11, 22, 23, 30, 0, 0, time.UTC) // already the 23rd in Tashkent
	if client.DateOf(at.In(tashkent)) != client.NewDate(2026, time.November, 23) || client.DateOf(at) != client.NewDate(2026, time.November, 22) {
		t.Errorf("DateOf reads the time's own location")
	}
	if m := d.In(tashkent); !m.Equal(time.Date(1990, 5, 16, 19, 0, 0, 0, time.UTC)) {
		t.Errorf("midnight in Tashkent: %v", m)
	}
	for _, bad := range []string{"17.05.1990", "1990-5-17", "1990-02-30", "1990-05-17T00:00:00Z"} {
		if _, err := client.ParseDate(bad); err == nil {
			t.Errorf("%q read as a date", bad)
		}
	}
	var v struct {
		D, Zero client.Date
	}
	if err := json.Unmarshal([]byte(`{"D":"2030-01-09","Zero":""}`), &v); err != nil || v.D != client.NewDate(2030, time.January, 9) || !v.Zero.IsZero() {
		t.Errorf("unmarshal: %+v %v", v, err)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != `{"D":"2030-01-09","Zero":""}` {
		t.Errorf("marshal: %s %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"D":"09.01.2030"}`), &v); err == nil {
		t.Error("09.01.2030 read as a date")
	}
}
