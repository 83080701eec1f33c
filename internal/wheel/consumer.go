package wheel

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
// holds it: a helper's pass is bounded. The driver blocks on the mutex
// rather than spin: under a chain of AfterFuncs, whose callbacks help,
// spinning cost more than the timers.
func (d *driver) acquire() { d.w.consumer.Lock() }

// release gives up the consumer role.
func (d *driver) release() { d.w.consumer.Unlock() }

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
	if !w.consumer.TryLock() {
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
	w.consumer.Unlock()
}
