package wheel

// Counts is a snapshot of a Wheel's counters; stashtime.Stats documents
// each.
type Counts struct {
	Live, Fired, Stopped           int64
	Overflow                       int
	Walks, Wakes                   int64
	Cleans, Compacts, PollerErrors int64
	Lateness                       [LateBuckets]uint64
	LatenessSum                    int64
}

// Counts returns a snapshot of the wheel's counters.
func (w *Wheel) Counts() Counts {
	c := Counts{
		Live:         w.Live(),
		Fired:        w.fired.Load(),
		Stopped:      w.stopped.Load(),
		Overflow:     w.store.Overflow(),
		Walks:        w.walks.Load(),
		Wakes:        w.wakes.Load(),
		Cleans:       w.cleans.Load(),
		Compacts:     w.compacts.Load(),
		PollerErrors: w.pollerErrors.Load(),
	}
	c.Lateness, c.LatenessSum = w.late.snapshot()
	return c
}

// Live returns the number of armed timers: the armings counted less the
// disarmings (Stop and Reset count those in stopped, the driver's firings in
// ended). Each of the three only grows, and a disarming is counted after its
// arming, so reading the disarmings first can only see an arming that it
// does not see disarmed, not the other way round: a load concurrent with
// producers may count a timer that has just been stopped, but never misses
// one that stays armed throughout. The driver relies on that to go idle only
// when nothing is armed.
func (w *Wheel) Live() int64 {
	ended := w.ended.Load()
	stopped := w.stopped.Load()
	return w.starts.Load() - stopped - ended
}
