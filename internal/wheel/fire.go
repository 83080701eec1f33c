package wheel

import "math"

// fire fires the timer of a near-heap holder if it is still its live
// holder, still armed and due; it reports whether it fired.
func (d *driver) fire(it nearItem, now int64) bool {
	w := d.w
	e := it.e
	e.lock()
	if !e.inHeap(it.key) {
		e.unlock()
		return false
	}
	if !e.pending {
		e.unhold()
		e.unlock()
		return false
	}
	// A live heap holder is keyed by the deadline (a Reset gives the
	// entry a new holder), and the pass pops only keys due by now.
	when := it.key
	w.late.record(now - when)
	w.fired.Add(1)
	switch e.kind {
	case kindFunc:
		e.pending = false
		checkDisarmed(e)
		e.unhold()
		w.ended.Add(1)
		f := e.fn()
		e.unlock()
		w.goCallback(f)
		return true
	case kindChan:
		e.pending = false
		checkDisarmed(e)
		e.unhold()
		w.ended.Add(1)
		if c := e.ch(); c != nil {
			select {
			case c <- w.clock.Time(when):
			default:
			}
		}
	case kindTicker:
		c := e.ch()
		if c == nil { // abandoned: the channel has been collected
			e.pending = false
			checkDisarmed(e)
			e.unhold()
			w.ended.Add(1)
			break
		}
		te := e.ticker()
		after := now // the next firing is the first tick after it
		select {
		case c <- w.clock.Time(when):
			te.drops = 0
		default: // a tick is already waiting: drop this one
			if te.drops < math.MaxUint32 {
				te.drops++
			}
			after = IdleAfter(now, te.period, te.drops)
		}
		e.setWhen(nextTick(when, te.period, after))
		// A ticker stays in the near heap from tick to tick, unless its
		// period is long: the heap may hold a timer beyond the walk's end,
		// which fires only once the walk has passed it.
		if it, near := d.refile(e, now, w.bucketOf(addSat(now, max(w.lookahead, tickerNear)))); near {
			it.latest = addSat(it.key, w.slack(it.key-now)) // armed at now
			d.heap.push(it)
		}
		checkRearmed(e, now)
	}
	e.unlock()
	return true
}

// tickerNear is how far ahead a ticker's next tick may lie for the
// driver to keep the ticker in its near heap.
const tickerNear = int64(1 << 27) // about 134 ms

// nextTick returns the first tick after now of a ticker that was due at
// when: fixed rate, phase aligned, missed ticks dropped.
func nextTick(when, period, now int64) int64 {
	late := now - when
	next := when + period*(1+late/period)
	if next < when {
		return math.MaxInt64
	}
	return next
}

// A ticker nobody receives from would cost the driver a firing every
// period for nothing, where package time's costs nothing (its channel timer
// is in the runtime's heap only while a goroutine blocks on the channel).
// So once tickerIdle firings in a row have found the last tick still
// waiting in the channel, each further such firing puts the next one off
// past the ticks in between, by a span that doubles with each (two periods,
// then four...) up to tickerIdleMax: the next firing is then the last tick
// within that span, or the next tick if the period is longer. The firing
// that finds the channel empty, because the receiver took the tick, delivers
// and ends the backoff, so the receiver's next tick is at most about
// tickerIdleMax later than package time's; a receiver that takes each tick
// before tickerIdle more come due sees exactly package time's ticks.
const (
	tickerIdle    = 16
	tickerIdleMax = int64(1 << 27) // about 134 ms
)

// IdleAfter returns the instant after which the next firing of a ticker of
// period, fired at now with drops firings in a row that found a tick
// waiting, is the first tick: now, or later once drops reaches tickerIdle.
func IdleAfter(now, period int64, drops uint32) int64 {
	if drops < tickerIdle || period >= tickerIdleMax {
		return now
	}
	span := tickerIdleMax
	if k := drops - tickerIdle + 1; k < 32 && period <= tickerIdleMax>>k {
		span = period << k
	}
	return addSat(now, span-period)
}
