package poller

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// waitScheduled is Wait while the Ps are crowded: the waiter sleeps on a
// runtime timer, as the portable poller does, and a Wake reaches it on
// its channel.
//
// In a crowded process a waiter woken by the timerfd must first get a P:
// none is idle, so its thread queues the goroutine on the global run
// queue, behind goroutines preempted there that each run a time slice.
// A runtime timer is run by the scheduler itself, between two of a P's
// goroutines, and the goroutine it readies runs next on that P, so the
// waiter wakes as soon as package time's timers would fire, and holds no
// P while it sleeps. The price is the runtime's precision, which in a
// crowded process is the scheduler's anyway.
func (p *epollPoller) waitScheduled(deadline int64) error {
	if p.timer == nil {
		p.timer = time.NewTimer(time.Duration(deadline - clock.Mono()))
	} else {
		p.timer.Reset(time.Duration(deadline - clock.Mono()))
	}
	// Leave no runtime timer behind: a pending one would hide a deadlock
	// from the runtime.
	defer p.timer.Stop()
	p.mode.Store(modeChan)
	fired := false
	for {
		if p.closed.Load() {
			p.mode.Store(modeIdle)
			return ErrClosed
		}
		if p.pending.Load() {
			break
		}
		now := clock.Mono()
		if now >= deadline {
			break
		}
		if fired {
			// The runtime's clock reads a little ahead of ours.
			p.timer.Reset(time.Duration(deadline - now))
			fired = false
		}
		select {
		case <-p.ch: // maybe stale: re-check pending
		case <-p.done:
		case <-p.timer.C:
			fired = true
		}
	}
	p.finish()
	return nil
}
