// Package stashtest makes a fake stashtime.Timers for tests: a Wheel on a
// manual clock, ready in one line, closed when the test ends.
//
// Production code takes a stashtime.Timers, and is handed
// stashtime.Default() in main; it hands the same value to
// stashcontext.On and stashnet.WithWheel for its deadlines. Its test
// hands it a Wheel from New instead, and moves time with Advance:
//
//	func TestSessionExpires(t *testing.T) {
//		clk := stashtest.New(t)
//		s := NewSessions(clk) // takes a stashtime.Timers
//		id := s.Open()
//		clk.Advance(30 * time.Minute)
//		if s.Valid(id) {
//			t.Fatal("session still valid after 30 minutes")
//		}
//	}
//
// Advance returns only after every timer due by then has fired and the
// AfterFunc callbacks it started have returned, so what they did can be
// read at once, with no polling and no sleeps. The timers are the real
// stashtime ones, on a real wheel: only the clock under it is fake.
//
// # Or testing/synctest
//
// Inside a testing/synctest bubble, stashtime, stashcontext and stashnet
// run on the bubble's clock with no fake at all: the package-level
// functions and stashtime.Default()'s methods hand their timers to
// package time there. Prefer synctest where the code under test runs
// inside the bubble; use this package where it cannot (goroutines started
// outside the test, real network I/O, which a bubble does not wait for),
// where time should move only by explicit steps, or on Go releases before
// synctest.Test (Go 1.25).
package stashtest
