// Package stashtime is a drop-in replacement for the timers of package time,
// for programs that run a great many of them.
//
// Swap the import and nothing else:
//
//	import time "github.com/stashgo/stash/stashtime"
//
// Timer, AfterFunc, After, NewTimer, Ticker, NewTicker, Tick and Sleep behave
// as in Go 1.23's package time: the same Stop and Reset results in every
// state, no stale values after Stop or Reset, the deadline instant as the
// value sent, fixed-rate ticks that drop for slow receivers, AfterFunc's f in
// its own goroutine, the same panics. Every other exported name of package
// time is re-exported unchanged, as an alias, so values move freely between
// code that imports either.
//
// The timers live on a Wheel: one lock-free hierarchical timer wheel, and a
// driver goroutine that sleeps to the nanosecond in the poller (a timerfd
// on Linux) and runs only while timers are due soon. The package-level
// functions use a process-wide Wheel that starts on first use (Default;
// SetDefaultOptions configures it); NewWheel makes independent ones, on the
// system clock or on a ManualClock for deterministic tests.
//
// # Precision
//
// A timer never fires before its deadline, and at most a slack after it
// that grows with how far ahead it was armed: a power of two between a 32nd
// and a 16th of the distance, capped at DefaultSlack (about 524 µs):
//
//	armed d ahead     may fire up to
//	below 32 ns       0 (exact)
//	100 µs            4 µs
//	1 ms              32 µs
//	8.4 ms or more    524 µs
//
// Timers due within one another's slack fire in one wake-up; a timer alone
// fires at its deadline. Options.Slack sets another cap, or none. The
// package-level Sleep of a millisecond or more is package time's Sleep.
//
// # Differences from package time
//
//   - cap(C) and len(C) are 1, not 0; Stop and Reset still discard an
//     undelivered value, so no stale value is ever received.
//   - A timer fires up to its slack after its deadline, and delivers its
//     value then. GODEBUG=asynctimerchan=1 does not apply.
//   - Inside a testing/synctest bubble the package-level functions and the
//     methods of a Wheel on the system clock are package time's timers, on
//     the bubble's clock; a Wheel on a ManualClock refuses to start one there.
//   - The driver's goroutine, internal/wheel.(*Wheel).run, shows in
//     goroutine dumps and leak checkers while a timer is due within about
//     100 ms, and a deadlock is reported up to 0.2 s later.
//   - An abandoned channel timer is collected a few garbage collections
//     later than package time collects it.
//   - A ticker whose ticks go unreceived is fired less often until one is
//     taken.
//   - *Timer and *Ticker are this package's own types, and misuse that would
//     leave timers unfired panics or returns an error where it is made.
//
// docs/differences.md in the repository gives each difference in full,
// docs/how-it-works.md how the wheel works, and the documentation of
// package internal/wheel its mechanisms.
package stashtime
