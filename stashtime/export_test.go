package stashtime

// TickerIdleAfter is idleAfter, for the external tests' model of a ticker
// nobody drains (conformance_model_test.go).
var TickerIdleAfter = idleAfter

// WakeCheck is wakeCheck: whether the wake-up checker is built in.
const WakeCheck = wakeCheck

// RaceEnabled is raceEnabled, for the external tests.
const RaceEnabled = raceEnabled
