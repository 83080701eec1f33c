package stashtime

import (
	"runtime"

	"github.com/stashgo/stash/poller"
)

// The consumer role. One goroutine at a time walks the store, fires from
// the near heap, cleans and compacts: the holder of the consumer role
// (Wheel.consumer). The driver takes it for each round of work and gives it
// up before it sleeps. While the driver sleeps, or is woken but not yet
// running (its thread waits for a P behind a busy process's goroutines), a
// goroutine that starts or resets a timer or sleeps and finds timers due
// (Wheel.helpAt, halfway into the first one's slack) takes the role, if it
// is free, runs one pass (at most MaxBatch timers fired) itself, as the
// runtime runs due timers from every P, and puts the driver's wake-up off
// (deferDriver). The driver, once it runs, waits for the role and finds
// that work done. The heap, the walk and the firing are the same whoever holds
// the role, so deadline order, exactly once and never early hold alike.

// acquire takes the consumer role for the driver, waiting for a helper that
// holds it: a helper's pass is bounded.
func (d *driver) acquire() {
	for !d.w.consumer.CompareAndSwap(false, true) {
		runtime.Gosched()
	}
}

// release gives up the consumer role.
func (d *driver) release() { d.w.consumer.Store(false) }

// help runs one pass of the driver's on the calling goroutine if timers
// are due by now (Wheel.helpAt), the driver is not running and the
// consumer role is free. helpAt lies halfway through the slack of the
// first timer due, so that the timers due around it fire in one pass, and
// before the driver's own wake-up, which the pass then puts off (see
// deferDriver): while goroutines keep coming by, they fire the timers and
// the driver sleeps on.
func (w *Wheel) help(now int64) {
	if w.helpAt.Load() > now || w.sleepUntil.Load() == running {
		return
	}
	if !w.consumer.CompareAndSwap(false, true) {
		return
	}
	// The driver may have run since: then it has published a new helpAt.
	if w.helpAt.Load() <= now && w.sleepUntil.Load() != running && !w.closed.Load() {
		d := w.drv
		w.helped.Add(1)
		more, fired, _ := d.pass()
		w.helpedFired.Add(int64(fired))
		if more {
			w.helpAt.Store(now) // the next caller goes on
		} else {
			next := d.next(now)
			w.helpAt.Store(d.helpAt(next))
			w.deferDriver(now, next)
		}
	}
	w.consumer.Store(false)
}

// helpAt returns when goroutines should help the driver if it is to wake
// at next: halfway from the first deadline in the near heap to next.
func (d *driver) helpAt(next int64) int64 {
	if len(d.heap) == 0 || d.heap[0].key >= next {
		return next
	}
	return next - (next-d.heap[0].key)/2
}

// deferDriver puts off the driver's wake-up to next, when a helping pass at
// now has done what it would have woken for. It raises sleepUntil first, so
// that a producer whose timer needs the driver sooner lowers it again and
// wakes it, then checks for a producer that added such a timer before it
// raised it and asked for no wake-up, as the driver does before it sleeps.
// The consumer role is held.
func (w *Wheel) deferDriver(now, next int64) {
	p, ok := w.poller.(poller.Deferrer)
	su := w.sleepUntil.Load()
	// The driver parks for good (poller.NoDeadline) only by itself, so
	// that a deadlock is still reported.
	if !ok || su == running || next <= su || next == poller.NoDeadline || !w.sleepUntil.CompareAndSwap(su, next) {
		return
	}
	if n := w.drv.next(now); n < next || w.intake.waiting() {
		w.wakeIfEarlier(min(n, now))
		return
	}
	p.Defer(su, next)
}
