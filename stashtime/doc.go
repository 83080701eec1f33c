// Package stashtime is a drop-in replacement for the timers of package time,
// backed by a lock-free hierarchical timer wheel.
//
// Swap the import and nothing else:
//
//	import time "github.com/stashgo/stash/stashtime"
//
// Timer, AfterFunc, After, NewTimer, Ticker, NewTicker, Tick and Sleep behave
// as Go 1.23's time package does; every other exported name of package time is
// re-exported unchanged.
package stashtime
