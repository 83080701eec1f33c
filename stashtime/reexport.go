package stashtime

// This file re-exports every exported name of package time except the timer
// API (Timer, Ticker, NewTimer, AfterFunc, After, NewTicker, Tick, Sleep),
// which the wheel implements. Types are aliases, so values move freely
// between code that imports time and code that imports stashtime.
// TestReexportComplete keeps this list in step with the toolchain's time
// package.

import "time"

// Types. Each is an alias of the type of the same name in package time.
type (
	// Time is time.Time.
	Time = time.Time

	// Duration is time.Duration.
	Duration = time.Duration

	// Month is time.Month.
	Month = time.Month

	// Weekday is time.Weekday.
	Weekday = time.Weekday

	// Location is time.Location.
	Location = time.Location

	// ParseError is time.ParseError.
	ParseError = time.ParseError
)

// Common durations, as in package time.
const (
	Nanosecond  = time.Nanosecond
	Microsecond = time.Microsecond
	Millisecond = time.Millisecond
	Second      = time.Second
	Minute      = time.Minute
	Hour        = time.Hour
)

// Layouts for Time.Format and Parse, as in package time. They are untyped
// string constants there and here.
const (
	Layout      = time.Layout
	ANSIC       = time.ANSIC
	UnixDate    = time.UnixDate
	RubyDate    = time.RubyDate
	RFC822      = time.RFC822
	RFC822Z     = time.RFC822Z
	RFC850      = time.RFC850
	RFC1123     = time.RFC1123
	RFC1123Z    = time.RFC1123Z
	RFC3339     = time.RFC3339
	RFC3339Nano = time.RFC3339Nano
	Kitchen     = time.Kitchen

	// Handy time stamps.
	Stamp      = time.Stamp
	StampMilli = time.StampMilli
	StampMicro = time.StampMicro
	StampNano  = time.StampNano
	DateTime   = time.DateTime
	DateOnly   = time.DateOnly
	TimeOnly   = time.TimeOnly
)

// Months of the year, as in package time.
const (
	January   = time.January
	February  = time.February
	March     = time.March
	April     = time.April
	May       = time.May
	June      = time.June
	July      = time.July
	August    = time.August
	September = time.September
	October   = time.October
	November  = time.November
	December  = time.December
)

// Days of the week, as in package time.
const (
	Sunday    = time.Sunday
	Monday    = time.Monday
	Tuesday   = time.Tuesday
	Wednesday = time.Wednesday
	Thursday  = time.Thursday
	Friday    = time.Friday
	Saturday  = time.Saturday
)

// Locations.
//
// UTC and Local hold the same *Location pointers as time.UTC and time.Local,
// which package time never changes, so UTC == time.UTC and Local ==
// time.Local, and Time.Local, Time.In(Local) etc. behave identically.
//
// They are separate variables, though: assigning to stashtime.Local (which is
// what `time.Local = loc` means after the import swap) does not change
// time.Local, which is what Now and Time.Local use; and an assignment to
// time.Local made elsewhere is not seen here. Modifying the Location through
// the pointer (*Local = *loc) affects both, since they share it.
var (
	// UTC is time.UTC.
	UTC = time.UTC

	// Local is time.Local; see above.
	Local = time.Local
)

// Now returns the current local time; see time.Now.
func Now() Time { return time.Now() }

// Since returns the time elapsed since t; see time.Since.
func Since(t Time) Duration { return time.Since(t) }

// Until returns the duration until t; see time.Until.
func Until(t Time) Duration { return time.Until(t) }

// Unix returns the local Time for the given Unix time; see time.Unix.
func Unix(sec int64, nsec int64) Time { return time.Unix(sec, nsec) }

// UnixMilli returns the local Time for the given Unix time in milliseconds;
// see time.UnixMilli.
func UnixMilli(msec int64) Time { return time.UnixMilli(msec) }

// UnixMicro returns the local Time for the given Unix time in microseconds;
// see time.UnixMicro.
func UnixMicro(usec int64) Time { return time.UnixMicro(usec) }

// Date returns the Time corresponding to the given date and time in loc;
// see time.Date.
func Date(year int, month Month, day, hour, min, sec, nsec int, loc *Location) Time {
	return time.Date(year, month, day, hour, min, sec, nsec, loc)
}

// Parse parses a formatted string; see time.Parse.
func Parse(layout, value string) (Time, error) { return time.Parse(layout, value) }

// ParseInLocation is like Parse but interprets a time without zone
// information in loc; see time.ParseInLocation.
func ParseInLocation(layout, value string, loc *Location) (Time, error) {
	return time.ParseInLocation(layout, value, loc)
}

// ParseDuration parses a duration string such as "1h15m"; see
// time.ParseDuration.
func ParseDuration(s string) (Duration, error) { return time.ParseDuration(s) }

// LoadLocation returns the Location with the given name; see
// time.LoadLocation.
func LoadLocation(name string) (*Location, error) { return time.LoadLocation(name) }

// LoadLocationFromTZData returns a Location with the given name, built from
// IANA time zone data; see time.LoadLocationFromTZData.
func LoadLocationFromTZData(name string, data []byte) (*Location, error) {
	return time.LoadLocationFromTZData(name, data)
}

// FixedZone returns a Location that always uses the given zone name and
// offset (seconds east of UTC); see time.FixedZone.
func FixedZone(name string, offset int) *Location { return time.FixedZone(name, offset) }
