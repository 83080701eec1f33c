package clock

import (
	"math"
	"sync"
	"time"
)

// Manual is a Clock that moves only when told to. Its zero reading is the
// wall-clock instant Epoch. It is safe for concurrent use.
type Manual struct {
	// Epoch is the time.Time that the reading 0 stands for.
	Epoch time.Time

	mu      sync.Mutex
	now     int64
	waiters map[*manualWaiter]struct{}
}

type manualWaiter struct {
	deadline int64
	ch       chan struct{}
}

// NewManual returns a manual clock reading start.
func NewManual(start int64) *Manual {
	return &Manual{
		Epoch:   time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		now:     start,
		waiters: make(map[*manualWaiter]struct{}),
	}
}

// Now returns the current reading.
func (m *Manual) Now() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// ManualEnd is the last reading of a Manual clock: one short of
// math.MaxInt64, the deadline that stands for never, so that a timer due
// never stays pending however far the clock is moved.
const ManualEnd = math.MaxInt64 - 1

// Time returns Epoch plus mono nanoseconds.
func (m *Manual) Time(mono int64) time.Time { return m.Epoch.Add(time.Duration(mono)) }

// Advance moves the clock forward by d (a negative d is ignored: the clock is
// monotonic) and wakes every waiter whose deadline it reaches. The clock
// stops at ManualEnd rather than wrap.
func (m *Manual) Advance(d time.Duration) {
	if d < 0 {
		return
	}
	m.mu.Lock()
	if m.now > ManualEnd-int64(d) {
		m.now = ManualEnd
	} else {
		m.now += int64(d)
	}
	m.release()
	m.mu.Unlock()
}

// Set moves the clock forward to t, or to ManualEnd if t is beyond it; a t
// earlier than the current reading is ignored.
func (m *Manual) Set(t int64) {
	t = min(t, ManualEnd)
	m.mu.Lock()
	if t > m.now {
		m.now = t
		m.release()
	}
	m.mu.Unlock()
}

// release closes the channel of every waiter whose deadline has been reached.
// m.mu is held.
func (m *Manual) release() {
	for w := range m.waiters {
		if w.deadline <= m.now {
			close(w.ch)
			delete(m.waiters, w)
		}
	}
}

// Until returns a channel that is closed once the clock reads at least
// deadline, and a function that releases the registration if the caller
// stops waiting first. Calling cancel after the channel is closed is a no-op.
func (m *Manual) Until(deadline int64) (ch <-chan struct{}, cancel func()) {
	w := &manualWaiter{deadline: deadline, ch: make(chan struct{})}
	m.mu.Lock()
	defer m.mu.Unlock()
	if deadline <= m.now {
		close(w.ch)
		return w.ch, func() {}
	}
	m.waiters[w] = struct{}{}
	return w.ch, func() {
		m.mu.Lock()
		delete(m.waiters, w)
		m.mu.Unlock()
	}
}

// Waiters reports how many goroutines are registered with Until and not yet
// released. Tests use it to know that a sleeper has gone to sleep.
func (m *Manual) Waiters() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.waiters)
}
