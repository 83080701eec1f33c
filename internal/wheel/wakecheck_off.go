//go:build !stashcheck

package wheel

// The wake-up checker is off: see wakecheck.go, built with the stashcheck
// tag. These calls compile to nothing.

// WakeCheck reports whether the wake-up checker is built in.
const WakeCheck = false

func checkArmed(*Entry, int64, int64) {}
func checkRearmed(*Entry, int64)      {}
func checkDisarmed(*Entry)            {}
func checkAsleep(*Wheel, string)      {}
func checkClosed(*Wheel)              {}
func checkEntry(*Entry)               {}
func checkTraceDump() string          { return "" }
func mustHold(*Entry)                 {}
func mustHoldRole(*Wheel)             {}
