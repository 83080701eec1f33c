package stashtime

import "github.com/stashgo/stash/internal/wheel"

// A Ticker holds a channel that delivers ticks of a clock at intervals.
// Ticks are fixed-rate and phase-aligned; a slow receiver misses ticks
// rather than receiving a backlog. A Ticker must be created with NewTicker.
type Ticker struct {
	C <-chan Time
	e *wheel.Entry
}

// A chanTicker is a Ticker with a reference to its channel of its own, as a
// chanTimer is.
type chanTicker struct {
	t Ticker
	c chan Time
}

// NewTicker returns a new Ticker on w whose channel delivers the time every
// period d. It panics if d <= 0.
func (w *Wheel) NewTicker(d Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return NewTicker(d)
		}
	}
	return w.newTicker(w.begin("NewTicker"), d)
}

func (w *Wheel) newTicker(now int64, d Duration) *Ticker {
	c, e := w.eng.StartTicker(now, d)
	ct := &chanTicker{t: Ticker{C: c, e: e}, c: c}
	return &ct.t
}

// Tick is NewTicker(d).C, or nil if d <= 0. An unreferenced Tick channel is
// collected and stops ticking.
func (w *Wheel) Tick(d Duration) <-chan Time {
	if d <= 0 {
		return nil
	}
	return w.NewTicker(d).C
}

// Stop turns off the ticker and discards a tick not yet received. It does
// not close the channel. Stop on a Ticker not made by NewTicker does
// nothing.
func (t *Ticker) Stop() {
	if t.e != nil {
		t.e.StopTicker()
	}
}

// Reset stops the ticker, discards a tick not yet received, and restarts it
// with period d: the next tick arrives after d. It panics if d <= 0.
func (t *Ticker) Reset(d Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	if t.e == nil {
		panic("time: Reset called on uninitialized Ticker")
	}
	t.e.ResetTicker(d)
}
