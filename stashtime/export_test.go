package stashtime

import "github.com/stashgo/stash/internal/wheel"

// TickerIdleAfter is the engine's IdleAfter, for the external tests' model
// of a ticker nobody drains (conformance_model_test.go).
var TickerIdleAfter = wheel.IdleAfter

// WakeCheck reports whether the wake-up checker is built in.
const WakeCheck = wheel.WakeCheck

// RaceEnabled is raceEnabled, for the external tests.
const RaceEnabled = raceEnabled
