package poller

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// untiler is a clock that can signal when it reaches a deadline, such as
// *clock.Manual.
type untiler interface {
	Until(deadline int64) (ch <-chan struct{}, cancel func())
}

// portable is the Poller built on the runtime's timers and a channel.
type portable struct {
	wakeState
	c     Clock
	until untiler // non-nil if c can signal deadlines itself

	timer *time.Timer // created on first use; only the waiter touches it
}

// NewPortable returns a Poller built on the runtime's timers and a channel.
// It works on every OS and with any clock:
//
//   - with a clock that provides Until(deadline) (ch <-chan struct{}, cancel
//     func()), such as stashtime.ManualClock, Wait sleeps on that channel,
//     so the waiter moves only when the clock is advanced;
//   - with any other clock (the system clock, or a custom one), Wait
//     sleeps on a runtime timer for the time remaining and re-checks the
//     clock when it fires, so it never returns early even if the clock
//     drifts from the runtime's. Its precision is the runtime's (about
//     1 ms on an idle Linux process).
//
// It holds no file descriptor and starts no goroutine.
func NewPortable(c Clock) Poller {
	if c == nil {
		c = clock.System
	}
	p := &portable{c: c}
	p.init()
	if u, ok := c.(untiler); ok {
		p.until = u
	}
	return p
}

func (p *portable) Kind() string { return KindPortable }

func (p *portable) Wake() error {
	if p.closed.Load() {
		return ErrClosed
	}
	if p.flip() && p.mode.Load() == modeChan {
		p.sendToken()
	}
	return nil
}

func (p *portable) Close() error {
	p.markClosed()
	return nil
}

func (p *portable) Wait(deadline int64) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if !p.enter() {
		return ErrConcurrentWait
	}
	defer p.leave()
	if deadline == NoDeadline {
		return p.park()
	}
	p.mode.Store(modeChan)
	var (
		fired  <-chan struct{}  // from until
		timerC <-chan time.Time // from the runtime timer
		cancel func()
	)
	defer func() {
		if cancel != nil {
			cancel()
		}
		if timerC != nil {
			// Leave no runtime timer behind: a pending one would hide a
			// deadlock from the runtime and keep a thread's wake-up armed.
			p.timer.Stop()
		}
	}()
	for {
		if p.closed.Load() {
			p.mode.Store(modeIdle)
			return ErrClosed
		}
		if p.pending.Load() {
			break
		}
		now := p.c.Now()
		if now >= deadline {
			break
		}
		if fired == nil && timerC == nil {
			if p.until != nil {
				fired, cancel = p.until.Until(deadline)
			} else {
				timerC = p.arm(time.Duration(deadline - now))
			}
		}
		select {
		case <-p.ch: // maybe stale: re-check pending
		case <-p.done:
		case <-fired:
			fired = nil // re-registers if the clock is still short
		case <-timerC:
			timerC = nil // re-arms if the clock is still short
		}
	}
	p.finish()
	return nil
}

// arm starts the runtime timer for d and returns its channel.
func (p *portable) arm(d time.Duration) <-chan time.Time {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
		return p.timer.C
	}
	// Since Go 1.23 Reset discards a value not yet received; with
	// GODEBUG=asynctimerchan=1 a stale value may remain, which only costs
	// one more trip round the loop (the clock is re-checked).
	p.timer.Reset(d)
	return p.timer.C
}
