package wheel

import "sync"

// The driver answers Wheel.Sync: takeSyncs takes the waiting Syncs at the
// start of a round, with the clock reading then, and replySyncs releases
// them once nothing due at that reading is left.

// takeSyncs takes the Syncs waiting since the last round.
func (d *driver) takeSyncs() {
	w := d.w
	w.syncMu.Lock()
	if len(w.syncs) > 0 {
		d.syncAt = w.Now()
	}
	d.syncs = append(d.syncs, w.syncs...)
	clear(w.syncs)
	w.syncs = w.syncs[:0]
	w.syncMu.Unlock()
}

// replySyncs releases the Syncs taken.
func (d *driver) replySyncs() {
	for i, ch := range d.syncs {
		close(ch)
		d.syncs[i] = nil
	}
	d.syncs = d.syncs[:0]
}

// goCallback starts f, an AfterFunc timer's callback, in its own
// goroutine. On a wheel off the system clock it counts the callbacks
// running, so that Settle waits for them; on the system clock a go statement
// with no arguments allocates nothing, and nothing waits.
func (w *Wheel) goCallback(f func()) {
	if w.system {
		go f()
		return
	}
	w.callbacks.add()
	go func() {
		defer w.callbacks.done()
		f()
	}()
}

// A callbackCount counts callbacks running and lets a goroutine wait until
// none is. Unlike a sync.WaitGroup, it may count up from zero while a
// goroutine waits.
type callbackCount struct {
	mu   sync.Mutex
	n    int
	none *sync.Cond // on mu; broadcast when n drops to 0
}

func (c *callbackCount) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *callbackCount) done() {
	c.mu.Lock()
	if c.n--; c.n == 0 && c.none != nil {
		c.none.Broadcast()
	}
	c.mu.Unlock()
}

// wait returns once no callback is running.
func (c *callbackCount) wait() {
	c.mu.Lock()
	if c.none == nil {
		c.none = sync.NewCond(&c.mu)
	}
	for c.n > 0 {
		c.none.Wait()
	}
	c.mu.Unlock()
}
