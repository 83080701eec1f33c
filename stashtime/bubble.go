package stashtime

import (
	"os"
	"strings"

	"github.com/stashgo/stash/internal/clock"
)

// Bubbles of testing/synctest run on a fake clock, and a channel made inside
// one must never be touched from the driver's goroutine, outside it: that is
// a fatal error. So the package-level functions hand the work to package
// time inside a bubble.
//
// Bubbles exist only in test binaries, so elsewhere the check is a single
// load. In a test binary, clock.TimeNow tells a bubble by what time.Since
// reads there, and its reading is the one the timer starts from (see now).

// testBinary reports whether the program is a test binary: one built by go
// test (named *.test, or *.test.exe on Windows), or one run with testing
// flags (go test always passes -test.paniconexit0 and -test.timeout). A
// program that merely calls testing.Init or testing.Benchmark (as the bench
// command does) is not one: it cannot create a bubble.
//
// The answer is computed once, as the package initializes: package os,
// which it imports, has set os.Args by then, and package testing registers
// its flags only later (in main), so the name and the arguments are what
// tell. A test binary renamed by go test -c -o is still recognized. A
// plain variable, so that the check on every timer start inlines.
func testBinary() bool { return isTestBinary }

var isTestBinary = func() bool {
	if strings.HasSuffix(os.Args[0], ".test") || strings.HasSuffix(os.Args[0], ".test.exe") {
		return true
	}
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.") || strings.HasPrefix(a, "--test.") {
			return true
		}
	}
	return false
}()

// now returns the system clock reading to start a timer from, and false if
// the calling goroutine is inside a synctest bubble.
func now() (int64, bool) {
	if !testBinary() {
		return clock.Mono(), true
	}
	return clock.TimeNow()
}

// Inside a bubble, the methods of a Wheel on the system clock hand their
// work to package time too, the process-wide wheel's included, so that
// code handed Default() as its Timers runs on the bubble's clock. A Wheel
// on a clock of its own refuses (see begin): its timers would run on that
// clock, not the bubble's.
//
// Default cannot start the process-wide wheel inside a bubble, where the
// channels it makes would be the bubble's. There it returns bubbleDefault
// instead: a stand-in made as the package initializes, outside any bubble,
// whose methods hand off to package time inside one and go to Default()
// outside.
var bubbleDefault = &Wheel{}

// inBubble reports whether the calling goroutine is inside a bubble.
func inBubble() bool {
	_, ok := now()
	return !ok
}

// forTest returns the wheel a call on w goes to, and whether it goes to
// package time instead: w is on the system clock and the caller is inside
// a bubble. Only test binaries make bubbles, so the methods call it only
// when testBinary() says so.
func (w *Wheel) forTest() (_ *Wheel, toTime bool) {
	if w == bubbleDefault {
		if inBubble() {
			return w, true
		}
		return Default(), false
	}
	return w, w.eng.System() && inBubble()
}
