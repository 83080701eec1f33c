package poller

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/stashgo/stash/internal/clock"
	"golang.org/x/sys/unix"
)

// refsClosed is the bit of epollPoller.refs that Close sets; the bits below
// count the callers using the descriptors right now.
const refsClosed = 1 << 62

// epollPoller sleeps in epoll_wait on a timerfd (the deadline) and an
// eventfd (wake-ups). Its clock is clock.System (CLOCK_MONOTONIC).
type epollPoller struct {
	wakeState
	epfd, tfd, efd int

	// refs counts the goroutines inside a system call on the descriptors,
	// plus refsClosed once Close has run. Whoever brings it to exactly
	// refsClosed closes the descriptors, so none is closed (and its number
	// reused) under a caller still using it.
	refs      atomic.Int64
	fdsClosed atomic.Bool
	cleanup   runtime.Cleanup // closes the descriptors of a poller dropped unclosed

	// Owned by the waiter.
	armed int64 // the deadline the timerfd is armed for; 0 if none
	// timer is the runtime timer a sleep on the scheduler waits for (see
	// waitScheduled); created by the first such sleep.
	timer  *time.Timer
	events [2]unix.EpollEvent
	buf    [8]byte
	crowd  crowding
}

// NewEpoll returns the Linux Poller: one epoll instance watching a timerfd
// (CLOCK_MONOTONIC, armed with absolute deadlines) and an eventfd for
// wake-ups, all close-on-exec and non-blocking. Its deadlines are readings of
// the system monotonic clock (see Now). It fails if a descriptor cannot be created (for example
// EMFILE); then nothing is left open. Close releases the descriptors; a
// poller dropped without Close has them closed when it is garbage collected.
//
// Wait with a deadline blocks the calling OS thread in epoll_wait, so a
// wake-up costs one thread switch and lands within microseconds of the
// deadline. A wait of handOffBeyond or more gives up the caller's P first,
// so that other goroutines run on it meanwhile, and so does a shorter one
// when the Ps are crowded. While they are crowded and a wake-up has had to
// wait for one (see crowding_linux.go), Wait sleeps on a runtime timer
// instead, as the portable poller does: then the scheduler wakes the
// waiter.
func NewEpoll() (Poller, error) {
	p := &epollPoller{epfd: -1, tfd: -1, efd: -1}
	p.init()
	p.crowd.init()
	var err error
	if p.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, p.fail("epoll_create1", err)
	}
	if p.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK); err != nil {
		return nil, p.fail("timerfd_create", err)
	}
	if p.efd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return nil, p.fail("eventfd", err)
	}
	for _, fd := range []int{p.tfd, p.efd} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return nil, p.fail("epoll_ctl", err)
		}
	}
	p.cleanup = runtime.AddCleanup(p, closeAll, [3]int{p.epfd, p.tfd, p.efd})
	return p, nil
}

// fail closes what NewEpoll opened and wraps err.
func (p *epollPoller) fail(call string, err error) error {
	p.closeFDs()
	return fmt.Errorf("poller: %s: %w", call, err)
}

func (p *epollPoller) Kind() string { return KindEpoll }

// acquire takes a reference on the descriptors; false means closed.
func (p *epollPoller) acquire() bool {
	if p.refs.Add(1)&refsClosed != 0 {
		p.release()
		return false
	}
	return true
}

func (p *epollPoller) release() {
	if p.refs.Add(-1) == refsClosed {
		p.closeFDs()
	}
}

func (p *epollPoller) closeFDs() {
	if !p.fdsClosed.CompareAndSwap(false, true) {
		return
	}
	p.cleanup.Stop()
	closeAll([3]int{p.epfd, p.tfd, p.efd})
}

// closeAll closes the descriptors that are open (not -1).
func closeAll(fds [3]int) {
	for _, fd := range fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

func (p *epollPoller) Close() error {
	if !p.markClosed() { // wakes a parked waiter
		return nil
	}
	// refs cannot carry refsClosed yet (only this call sets it), so the
	// descriptors are open: wake a waiter in epoll_wait, then give up our
	// reference and the descriptors with it.
	p.refs.Add(1)
	p.signalFD()
	if p.refs.Add(refsClosed-1) == refsClosed {
		p.closeFDs()
	}
	return nil
}

func (p *epollPoller) Wake() error {
	if p.closed.Load() {
		return ErrClosed
	}
	if !p.flip() {
		return nil
	}
	switch p.mode.Load() {
	case modeChan:
		p.sendToken()
	case modeFD:
		if !p.acquire() {
			return ErrClosed
		}
		p.signalFD()
		p.release()
	}
	return nil
}

// signalFD adds 1 to the eventfd. The caller holds a reference.
func (p *epollPoller) signalFD() {
	p.signals.Add(1)
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	for {
		// EAGAIN means the counter is saturated: readable anyway.
		if err := rawWrite(p.efd, one[:]); err != unix.EINTR {
			return
		}
	}
}

// drain reads a readable timerfd or eventfd, resetting it. EAGAIN (nothing
// to read: spurious readiness) is fine.
func (p *epollPoller) drain(fd int) {
	for {
		if err := rawRead(fd, p.buf[:]); err != unix.EINTR {
			return
		}
	}
}

func (p *epollPoller) Wait(deadline int64) error {
	if !p.acquire() {
		return ErrClosed
	}
	defer p.release()
	if !p.enter() {
		return ErrConcurrentWait
	}
	defer p.leave()
	if deadline == NoDeadline {
		return p.park()
	}
	if clock.Mono() >= deadline {
		p.finish()
		if p.closed.Load() { // closing, though not yet past acquire
			return ErrClosed
		}
		return nil
	}
	// One reading of the Ps per Wait, however many times a stale signal
	// sends it back to sleep: crowding counts sleeps.
	how := p.crowd.check()
	if how == waitOnTimer {
		return p.waitScheduled(deadline)
	}
	if err := p.arm(deadline); err != nil {
		return err
	}
	p.mode.Store(modeFD)
	for {
		if p.closed.Load() {
			p.mode.Store(modeIdle)
			return ErrClosed
		}
		if p.pending.Load() {
			break
		}
		n, err := p.epollWait(deadline, how == waitWithoutP)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			p.mode.Store(modeIdle)
			return fmt.Errorf("poller: epoll_wait: %w", err)
		}
		now := clock.Mono() // on a P again, maybe after a wait for one
		for _, ev := range p.events[:n] {
			if int(ev.Fd) == p.tfd {
				p.armed = 0 // expired: a one-shot timer disarms itself
				p.crowd.woke(now - deadline)
			}
			p.drain(int(ev.Fd))
		}
		if now >= deadline {
			break
		}
		if p.armed == 0 { // expired before the clock agreed
			if err := p.arm(deadline); err != nil {
				p.mode.Store(modeIdle)
				return err
			}
		}
	}
	p.finish()
	return nil
}

// epollWait waits in epoll_wait, with no timeout, for the timerfd armed
// for deadline or the eventfd. A sleep shorter than handOffBeyond keeps
// the calling goroutine's P, as any system call does: the wait is over
// before another goroutine could use it. A longer one gives the P up
// first (see sleepWithoutP): the runtime's monitor takes back a P left in
// a system call only when it next looks, which in a busy process can be
// 10 ms on, and meanwhile the goroutines queued on it wait. So does a
// shorter one when the Ps are crowded (see crowding_linux.go).
func (p *epollPoller) epollWait(deadline int64, crowded bool) (int, error) {
	if deadline-clock.Mono() < handOffBeyond && !crowded {
		return unix.EpollWait(p.epfd, p.events[:], -1)
	}
	n, errno := sleepWithoutP(p.epfd, &p.events[0], len(p.events))
	if errno != 0 {
		return 0, errno
	}
	return n, nil
}

// handOffBeyond is the shortest sleep for which the waiter gives up its P
// whatever the other Ps do: half the monitor's longest look, so that
// goroutines queued on a P kept wait no longer than that. A hand-off costs
// a thread's wake-up and the P's return, which a lower threshold makes
// tickers pay (docs/measured.md, "stashtime against time": the ticker
// row).
const handOffBeyond = int64(5 * time.Millisecond)

// Crowded reports whether the last Wait went through the scheduler (see
// crowding_linux.go).
func (p *epollPoller) Crowded() bool { return p.crowd.scheduled() }

// arm sets the timerfd to expire at deadline (CLOCK_MONOTONIC ns), unless it
// is already armed for it. Setting the timer also clears an expiration not
// yet read. Only the waiter calls it.
func (p *epollPoller) arm(deadline int64) error {
	if p.armed == deadline {
		return nil
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(deadline)}
	if unsafe.Sizeof(spec.Value.Sec) == 4 && deadline/1e9 > math.MaxInt32 {
		// A 32-bit time_t would wrap: wait as long as it can hold, 68
		// years of uptime, instead of waking at once or failing.
		spec.Value = unix.Timespec{Sec: math.MaxInt32}
	}
	if err := rawTimerfdSettime(p.tfd, unix.TFD_TIMER_ABSTIME, &spec); err != nil {
		p.armed = 0
		return fmt.Errorf("poller: timerfd_settime: %w", err)
	}
	p.armed = deadline
	return nil
}
