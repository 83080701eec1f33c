//go:build !stashcheck

package stashtime

// The wake-up checker is off: see wakecheck.go, built with the stashcheck
// tag. These calls compile to nothing.

// wakeCheck reports whether the wake-up checker is built in.
const wakeCheck = false

func checkArmed(*entry, int64, int64) {}
func checkRearmed(*entry, int64)      {}
func checkDisarmed(*entry)            {}
func checkAsleep(*Wheel, string)      {}
func checkClosed(*Wheel)              {}
func checkEntry(*entry)               {}
func checkTraceDump() string          { return "" }
