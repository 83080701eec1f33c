package poller

import (
	"sync/atomic"
)

// The modes a waiter publishes, so that a waker knows how to reach it.
const (
	modeIdle int32 = iota // not asleep: about to check the pending flag, or returning
	modeChan              // parked on wakeState.ch
	modeFD                // asleep in epoll_wait: reached through the eventfd
)

// wakeState is the wake-up protocol shared by both pollers.
//
// Wake sets pending; only the caller that flips it from false to true
// signals the waiter, and only if the waiter has published that it sleeps
// (mode). The waiter publishes its mode before it checks pending, and every
// return of Wait clears pending. Go atomics are sequentially consistent, so
// for a Wake racing with a waiter going to sleep, either the waiter sees
// pending set, or the waker sees the mode and signals it: a wake is never
// lost.
//
// A signal can be stale: the waiter returned (for its deadline, say) and
// consumed the wake between the waker's flip and its signal. Stale tokens
// and eventfd counts are filtered: the waiter only returns for a wake when
// pending is set, never because a token arrived.
type wakeState struct {
	pending atomic.Bool
	mode    atomic.Int32
	closed  atomic.Bool
	waiting atomic.Bool   // a Wait is in progress
	ch      chan struct{} // capacity 1: the token that wakes a parked waiter
	done    chan struct{} // closed by Close

	// signals counts the times a waker signalled the waiter (a channel send
	// or an eventfd write). Tests use it to check coalescing.
	signals atomic.Uint64
	// hookFinish, if set, runs when Wait is about to clear pending and
	// return. Tests use it to hold the waiter.
	hookFinish func()
}

func (w *wakeState) init() {
	w.ch = make(chan struct{}, 1)
	w.done = make(chan struct{})
}

// enter marks the start of a Wait; false means another is in progress.
func (w *wakeState) enter() bool { return w.waiting.CompareAndSwap(false, true) }

// leave marks the end of a Wait.
func (w *wakeState) leave() { w.waiting.Store(false) }

// flip makes a wake pending and reports whether this caller did it (and so
// must signal the waiter). The Load keeps the coalesced case read-only.
func (w *wakeState) flip() bool {
	return !w.pending.Load() && !w.pending.Swap(true)
}

// sendToken wakes a waiter parked on ch. It never blocks: a token already in
// the buffer wakes the waiter just as well.
func (w *wakeState) sendToken() {
	w.signals.Add(1)
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// finish ends a Wait that returns nil: it stops advertising a sleep, then
// consumes the pending wake, if any. A Wake after the Swap makes the next
// Wait return at once.
func (w *wakeState) finish() {
	w.mode.Store(modeIdle)
	if w.hookFinish != nil {
		w.hookFinish()
	}
	w.pending.Swap(false)
}

// markClosed reports whether this call closed the poller; it also wakes a
// parked waiter.
func (w *wakeState) markClosed() bool {
	if !w.closed.CompareAndSwap(false, true) {
		return false
	}
	close(w.done)
	return true
}

// park waits on the channel until a wake is pending or the poller closes.
// It is Wait(NoDeadline) for both pollers: no system call and no runtime
// timer, so the runtime's deadlock detection still works.
func (w *wakeState) park() error {
	w.mode.Store(modeChan)
	for {
		if w.closed.Load() {
			w.mode.Store(modeIdle)
			return ErrClosed
		}
		if w.pending.Load() {
			w.finish()
			return nil
		}
		select {
		case <-w.ch: // maybe stale: re-check pending
		case <-w.done:
		}
	}
}
