package poller

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

type impl struct {
	name string
	new  func(t *testing.T) Poller
}

// promptly bounds "returns promptly": generous, for a loaded 2-core CI box.
const promptly = time.Second

const long = int64(time.Hour)

func forEach(t *testing.T, f func(t *testing.T, p Poller)) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			p := im.new(t)
			defer p.Close()
			if !strings.HasPrefix(im.name, p.Kind()) {
				t.Fatalf("Kind() = %q, want %q", p.Kind(), im.name)
			}
			f(t, p)
		})
	}
}

// waitAsleep spins until the poller's waiter has published that it sleeps.
func waitAsleep(t *testing.T, p Poller) {
	t.Helper()
	st := stateOf(p)
	for start := time.Now(); st.mode.Load() == modeIdle; {
		if time.Since(start) > promptly {
			t.Fatal("waiter never went to sleep")
		}
		runtime.Gosched()
	}
}

// waitAsync runs p.Wait(deadline) in a goroutine and returns its result
// channel.
func waitAsync(p Poller, deadline int64) <-chan error {
	done := make(chan error, 1)
	go func() { done <- p.Wait(deadline) }()
	return done
}

func expectReturn(t *testing.T, done <-chan error, want error) {
	t.Helper()
	select {
	case err := <-done:
		if !errors.Is(err, want) {
			t.Fatalf("Wait = %v, want %v", err, want)
		}
	case <-time.After(promptly):
		t.Fatalf("Wait did not return within %v", promptly)
	}
}

func TestNeverEarly(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		for _, d := range []time.Duration{1, time.Microsecond, 50 * time.Microsecond,
			200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
			for i := 0; i < 20; i++ {
				deadline := clock.Mono() + int64(d)
				if err := p.Wait(deadline); err != nil {
					t.Fatal(err)
				}
				now := clock.Mono()
				if now < deadline {
					t.Fatalf("d=%v: Wait returned %v early", d, time.Duration(deadline-now))
				}
				if late := time.Duration(now - deadline); late > promptly {
					t.Fatalf("d=%v: Wait returned %v late", d, late)
				}
			}
		}
	})
}

func TestPastDeadline(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		for _, deadline := range []int64{math.MinInt64, -1, 0, 1, clock.Mono() - 1, clock.Mono()} {
			start := time.Now()
			if err := p.Wait(deadline); err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > promptly {
				t.Fatalf("Wait(%d) took %v", deadline, el)
			}
		}
	})
}

func TestWakeDuringWait(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline func() int64
	}{
		{"deadline", func() int64 { return clock.Mono() + long }},
		{"NoDeadline", func() int64 { return NoDeadline }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, p Poller) {
				for i := 0; i < 5; i++ {
					done := waitAsync(p, tc.deadline())
					waitAsleep(t, p)
					time.Sleep(time.Millisecond) // let it really sleep
					start := time.Now()
					if err := p.Wake(); err != nil {
						t.Fatal(err)
					}
					expectReturn(t, done, nil)
					if el := time.Since(start); el > promptly {
						t.Fatalf("woken after %v", el)
					}
				}
			})
		})
	}
}

// TestWakeBeforeWait: a Wake while nobody waits makes the next Wait return
// at once, and is consumed by it: the Wait after that sleeps again.
func TestWakeBeforeWait(t *testing.T) {
	for _, deadline := range []int64{long, NoDeadline} {
		forEach(t, func(t *testing.T, p Poller) {
			for i := 0; i < 3; i++ { // several wakes coalesce into one
				if err := p.Wake(); err != nil {
					t.Fatal(err)
				}
			}
			d := deadline
			if d != NoDeadline {
				d += clock.Mono()
			}
			expectReturn(t, waitAsync(p, d), nil)
			const nap = 20 * time.Millisecond
			start := clock.Mono()
			if err := p.Wait(start + int64(nap)); err != nil {
				t.Fatal(err)
			}
			if el := time.Duration(clock.Mono() - start); el < nap {
				t.Fatalf("second Wait returned after %v < %v: wake not consumed", el, nap)
			}
			if n := stateOf(p).signals.Load(); n != 0 {
				t.Fatalf("%d signals for wakes made before the Wait, want 0", n)
			}
		})
	}
}

// TestCoalescedWakes: many goroutines waking one sleeper cost one signal
// (one eventfd write for epoll, one channel send when parked).
func TestCoalescedWakes(t *testing.T) {
	for _, deadline := range []int64{long, NoDeadline} {
		forEach(t, func(t *testing.T, p Poller) {
			const wakers = 64
			st := stateOf(p)
			wakersDone := make(chan struct{})
			st.hookFinish = func() { <-wakersDone } // hold the waiter until all woke
			defer func() { st.hookFinish = nil }()
			d := deadline
			if d != NoDeadline {
				d += clock.Mono()
			}
			done := waitAsync(p, d)
			waitAsleep(t, p)
			before := st.signals.Load()
			var start, wg sync.WaitGroup
			start.Add(1)
			for i := 0; i < wakers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					start.Wait()
					if err := p.Wake(); err != nil {
						t.Error(err)
					}
				}()
			}
			start.Done()
			wg.Wait()
			close(wakersDone)
			expectReturn(t, done, nil)
			if n := st.signals.Load() - before; n != 1 {
				t.Fatalf("%d wakers cost %d signals, want 1", wakers, n)
			}
		})
	}
}

// TestNoLostWake races Wake against Waits that end for their own short
// deadlines: the waiter must see every handshake without sleeping long.
func TestNoLostWake(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		const rounds = 2000
		var seq, ack atomic.Int64
		stop := make(chan struct{})
		waiterDone := make(chan struct{})
		go func() {
			defer close(waiterDone)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ack.Store(seq.Load())
				var deadline int64
				switch i % 3 {
				case 0:
					deadline = NoDeadline
				case 1:
					deadline = clock.Mono() + long
				case 2:
					deadline = clock.Mono() + int64(i%50)*int64(time.Microsecond)
				}
				if err := p.Wait(deadline); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for r := int64(1); r <= rounds; r++ {
			seq.Store(r)
			if err := p.Wake(); err != nil {
				t.Fatal(err)
			}
			for start := time.Now(); ack.Load() < r; {
				if time.Since(start) > 5*time.Second {
					t.Fatalf("round %d: waiter missed the wake-up", r)
				}
				runtime.Gosched()
			}
		}
		close(stop)
		p.Wake()
		<-waiterDone
	})
}

func TestCloseWakesWaiter(t *testing.T) {
	for _, deadline := range []int64{long, NoDeadline} {
		forEach(t, func(t *testing.T, p Poller) {
			d := deadline
			if d != NoDeadline {
				d += clock.Mono()
			}
			done := waitAsync(p, d)
			waitAsleep(t, p)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			expectReturn(t, done, ErrClosed)
		})
	}
}

func TestUseAfterClose(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		for i := 0; i < 3; i++ {
			if err := p.Close(); err != nil {
				t.Fatalf("Close #%d = %v", i+1, err)
			}
		}
		for _, d := range []int64{0, clock.Mono() + long, NoDeadline} {
			if err := p.Wait(d); err != ErrClosed {
				t.Fatalf("Wait(%d) after Close = %v, want ErrClosed", d, err)
			}
		}
		if err := p.Wake(); err != ErrClosed {
			t.Fatalf("Wake after Close = %v, want ErrClosed", err)
		}
	})
}

// TestConcurrentClose races Close with Wakes and a waiter.
func TestConcurrentClose(t *testing.T) {
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				p := im.new(t)
				var wg sync.WaitGroup
				wg.Add(3)
				go func() {
					defer wg.Done()
					for {
						if err := p.Wait(clock.Mono() + int64(time.Duration(i)*time.Microsecond)); err != nil {
							return
						}
					}
				}()
				go func() {
					defer wg.Done()
					for p.Wake() == nil {
						runtime.Gosched()
					}
				}()
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(i) * 10 * time.Microsecond)
					p.Close()
				}()
				wg.Wait()
				p.Close()
			}
		})
	}
}

func TestManualClock(t *testing.T) {
	m := clock.NewManual(1000)
	p := New(m)
	defer p.Close()
	if p.Kind() != KindPortable {
		t.Fatalf("New(Manual).Kind() = %q", p.Kind())
	}
	if err := p.Wait(1000); err != nil { // reached: at once
		t.Fatal(err)
	}
	done := waitAsync(p, 1500)
	for m.Waiters() == 0 {
		runtime.Gosched()
	}
	m.Advance(499)
	select {
	case err := <-done:
		t.Fatalf("Wait(1500) returned %v at %d", err, m.Now())
	case <-time.After(20 * time.Millisecond):
	}
	m.Advance(1)
	expectReturn(t, done, nil)

	// Wake cuts a manual wait short, and the registration is released.
	done = waitAsync(p, 1<<40)
	for m.Waiters() == 0 {
		runtime.Gosched()
	}
	p.Wake()
	expectReturn(t, done, nil)
	if n := m.Waiters(); n != 0 {
		t.Fatalf("%d manual waiters left behind", n)
	}
}

// driftClock runs at half speed: a runtime timer fires before it reaches the
// deadline, so the portable poller must re-check and sleep again.
type driftClock struct{ base int64 }

func (c driftClock) Now() int64                { return (clock.Mono() - c.base) / 2 }
func (c driftClock) Time(mono int64) time.Time { return time.Time{} }

func TestPortableOtherClock(t *testing.T) {
	c := driftClock{clock.Mono()}
	p := New(c)
	defer p.Close()
	if p.Kind() != KindPortable {
		t.Fatalf("Kind = %q", p.Kind())
	}
	deadline := c.Now() + int64(5*time.Millisecond)
	if err := p.Wait(deadline); err != nil {
		t.Fatal(err)
	}
	if now := c.Now(); now < deadline {
		t.Fatalf("returned %v early on its own clock", time.Duration(deadline-now))
	}
}

func TestConcurrentWait(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		done := waitAsync(p, clock.Mono()+long)
		waitAsleep(t, p)
		if err := p.Wait(clock.Mono() + long); err != ErrConcurrentWait {
			t.Fatalf("second Wait = %v, want ErrConcurrentWait", err)
		}
		p.Wake()
		expectReturn(t, done, nil)
		if err := p.Wait(0); err != nil { // the poller is still usable
			t.Fatal(err)
		}
	})
}
