package domain

import "time"

// Tashkent is the business time zone: Asia/Tashkent, UTC+05:00 all year (no daylight saving).
// A fixed zone keeps the binary independent of the host's time zone database.
var Tashkent = time.FixedZone("+05:00", 5*60*60)

// BusinessDate returns the calendar date of t in Tashkent, as midnight UTC of that date, so
// that it compares directly with dates parsed from the wire form yyyy-MM-dd.
func BusinessDate(t time.Time) time.Time {
	y, m, d := t.In(Tashkent).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// BusinessDay is a business date's first instant and the next day's, in UTC.
func BusinessDay(day time.Time) (start, end time.Time) {
	start = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, Tashkent).UTC()
	return start, start.AddDate(0, 0, 1)
}
