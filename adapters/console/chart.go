package console

import (
	"github.com/tiyin/tiyin/ports"
)

// The daily report's chart: an SVG drawn on the server (no script, no CDN; the console's
// content security policy allows neither), three bars a day, each titled with its figure.

// chartSeries are the chart's bars of a day, in order, with their colours.
var chartSeries = []struct {
	name, fill string
	amount     func(ports.DailyRow) int64
}{
	{msg("issued"), "#1f5fa8", func(r ports.DailyRow) int64 { return r.Issued }},
	{msg("repaid"), "#2e8540", func(r ports.DailyRow) int64 { return r.Repaid }},
	{msg("transferred to cards"), "#b06d00", func(r ports.DailyRow) int64 { return r.Transferred }},
}

// chart is the SVG's geometry, in its own units.
type chart struct {
	Width, Height, Base int
	Bars                []chartBar
	Labels              []chartLabel
	Legend              []chartLabel
	Max                 string // the amount the chart's top stands for
}

// chartBar is one bar; its title (shown on hover) is its day, its series' message and its
// amount, which the template puts in the page's language.
type chartBar struct {
	X, Y, W, H  float64
	Fill        string
	Day, Series string
	Amount      string
}

type chartLabel struct {
	X, Y       float64
	Text, Fill string
}

const (
	chartWidth  = 960
	chartHeight = 260
	chartBase   = 220 // the bars' foot; the dates go below
	chartTop    = 30  // room for the legend above the tallest bar
)

// dailyChart lays the days out: the tallest amount reaches the top, every bar of a day side by
// side, a date under every seventh day.
func dailyChart(days []ports.DailyRow) chart {
	c := chart{Width: chartWidth, Height: chartHeight, Base: chartBase}
	var top int64
	for _, d := range days {
		for _, s := range chartSeries {
			top = max(top, s.amount(d))
		}
	}
	c.Max = money(top)
	for i, s := range chartSeries {
		c.Legend = append(c.Legend, chartLabel{X: float64(10 + i*200), Y: 16, Text: s.name, Fill: s.fill})
	}
	if len(days) == 0 {
		return c
	}
	slot := float64(chartWidth-20) / float64(len(days))
	w := slot / float64(len(chartSeries)+1)
	for i, d := range days {
		x := 10 + float64(i)*slot
		for j, s := range chartSeries {
			h := 0.0
			if top > 0 {
				h = float64(chartBase-chartTop) * float64(s.amount(d)) / float64(top)
			}
			c.Bars = append(c.Bars, chartBar{X: x + float64(j)*w, Y: float64(chartBase) - h, W: w, H: h, Fill: s.fill,
				Day: d.Day.Format("2006-01-02"), Series: s.name, Amount: money(s.amount(d))})
		}
		if i%7 == 0 {
			c.Labels = append(c.Labels, chartLabel{X: x, Y: chartBase + 16, Text: d.Day.Format("01-02")})
		}
	}
	return c
}
