package stashtime

import "sync/atomic"

// A counter is an int64 that goroutines on every P add to at once without
// contending for one cache line: each adds to the cell of the P it runs on,
// and load sums the cells. Every timer started and every one stopped is
// counted, so a single shared word would put a cache-line transfer between
// cores in every start and every Stop.
//
// A load concurrent with adds sees some of them, as any read of a moving
// count does.
type counter struct {
	cells []counterCell // shardCount of them
}

// A counterCell fills two cache lines, since cores fetch lines in adjacent
// pairs.
type counterCell struct {
	n atomic.Int64
	_ [128 - 8]byte
}

func newCounter() counter { return counter{cells: make([]counterCell, shardCount())} }

// add adds d and returns the new value of the cell it added to.
func (c *counter) add(d int64) int64 { return c.addOn(procID(), d) }

// addOn is add for a caller that has read its P id, p.
func (c *counter) addOn(p int, d int64) int64 {
	return c.cells[p&(len(c.cells)-1)].n.Add(d)
}

// load returns the sum of the cells.
func (c *counter) load() int64 {
	var sum int64
	for i := range c.cells {
		sum += c.cells[i].n.Load()
	}
	return sum
}

// live returns the number of armed timers: the armings counted less the
// disarmings (Stop and Reset count those in stopped, the driver's firings in
// ended). Each of the three only grows, and a disarming is counted after its
// arming, so reading the disarmings first can only see an arming that it
// does not see disarmed, not the other way round: a load concurrent with
// producers may count a timer that has just been stopped, but never misses
// one that stays armed throughout. The driver relies on that to go idle only
// when nothing is armed.
func (w *Wheel) live() int64 {
	ended := w.ended.Load()
	stopped := w.stopped.load()
	return w.starts.load() - stopped - ended
}
