package poller

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// countFDs counts the process's open descriptors in /proc/self/fd.
func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestNewIsEpoll(t *testing.T) {
	p := New(clock.System)
	defer p.Close()
	if p.Kind() != KindEpoll {
		t.Fatalf("New(clock.System).Kind() = %q, want %q", p.Kind(), KindEpoll)
	}
}

// TestCloseReleasesFDs: closed pollers leave no descriptor and no goroutine
// behind, whether Close finds the waiter idle or asleep.
func TestCloseReleasesFDs(t *testing.T) {
	defer goleak.VerifyNone(t)
	before := countFDs(t)
	const n = 10
	var ps []Poller
	epolls := 0
	for _, im := range impls() {
		for i := 0; i < n; i++ {
			ps = append(ps, im.new(t))
			if ps[len(ps)-1].Kind() == KindEpoll {
				epolls++
			}
		}
	}
	if during := countFDs(t); during != before+3*epolls {
		t.Fatalf("%d epoll pollers hold %d descriptors, want %d", epolls, during-before, 3*epolls)
	}
	for i, p := range ps {
		if err := p.Wait(clock.Mono() + int64(10*time.Microsecond)); err != nil {
			t.Fatal(err)
		}
		p.Wake()
		if err := p.Wait(0); err != nil { // consumes the wake
			t.Fatal(err)
		}
		var done <-chan error
		if i%2 == 0 { // close under a sleeping waiter
			done = waitAsync(p, clock.Mono()+long)
			waitAsleep(t, p)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if done != nil {
			expectReturn(t, done, ErrClosed)
		}
	}
	if after := countFDs(t); after != before {
		t.Fatalf("%d descriptors open before, %d after Close", before, after)
	}
}

// limitFree lowers RLIMIT_NOFILE's soft limit from orig to leave exactly
// k descriptor numbers free below it, given the open ones (openFDs). It
// panics if it cannot: it runs in a child.
func limitFree(orig unix.Rlimit, open map[int]bool, k int) {
	limit, free := 0, 0
	for ; free < k || open[limit]; limit++ {
		if !open[limit] {
			free++
		}
	}
	lim := orig
	lim.Cur = uint64(limit)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		panic(err)
	}
}

// openFDs lists open descriptors below max by probing them (no descriptor
// is opened to find out, unlike reading /proc/self/fd).
func openFDs(max int) map[int]bool {
	open := map[int]bool{}
	for fd := 0; fd < max; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			open[fd] = true
		}
	}
	return open
}

func init() {
	children.Scenarios["emfile"] = childEMFILE
}

// childEMFILE runs in a subprocess: it lowers RLIMIT_NOFILE so that only k
// more descriptors can be opened, for k = 0, 1, 2 (each step of NewEpoll
// fails in turn) and 3 (enough), and prints what New returned and whether
// any descriptor leaked.
func childEMFILE() {
	var orig unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &orig); err != nil {
		panic(err)
	}
	const probe = 4096
	// The runtime opens its netpoller's descriptors when the first timer is
	// set; any real program has done so long before it runs out.
	time.Sleep(time.Microsecond)
	for k := 0; k <= 3; k++ {
		before := openFDs(probe)
		limitFree(orig, before, k)
		ep, epollErr := NewEpoll()
		if epollErr == nil {
			if k < 3 {
				panic("NewEpoll succeeded out of descriptors")
			}
			ep.Close()
		}
		p := New(clock.System)
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &orig); err != nil {
			panic(err)
		}
		// The poller works, whichever it is.
		deadline := clock.Mono() + int64(100*time.Microsecond)
		werr := p.Wait(deadline)
		early := clock.Mono() < deadline
		p.Wake()
		werr2 := p.Wait(clock.Mono() + long)
		kind := p.Kind()
		p.Close()
		leaked := len(openFDs(probe)) - len(before)
		fmt.Printf("k=%d kind=%s emfile=%v wait=%v early=%v wake=%v leaked=%d\n",
			k, kind, errors.Is(epollErr, unix.EMFILE), werr, early, werr2, leaked)
	}
}

// TestFallbackOutOfDescriptors really exhausts descriptors in a subprocess:
// New must fall back to the portable poller, say so in Kind, and leak
// nothing from a half-built epoll poller.
func TestFallbackOutOfDescriptors(t *testing.T) {
	r := children.Run(t, "emfile", childLimit)
	out := r.Stdout
	if r.Code != 0 {
		t.Fatalf("child failed: exit %d (timed out: %v)\n%s%s", r.Code, r.TimedOut, out, r.Stderr)
	}
	t.Logf("child:\n%s", out)
	for k, want := range []string{
		"k=0 kind=portable emfile=true wait=<nil> early=false wake=<nil> leaked=0",
		"k=1 kind=portable emfile=true wait=<nil> early=false wake=<nil> leaked=0",
		"k=2 kind=portable emfile=true wait=<nil> early=false wake=<nil> leaked=0",
		"k=3 kind=epoll emfile=false wait=<nil> early=false wake=<nil> leaked=0",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("k=%d: want line %q", k, want)
		}
	}
}

// TestDroppedPollerReleasesFDs: a poller dropped without Close has its
// descriptors closed by the garbage collector.
func TestDroppedPollerReleasesFDs(t *testing.T) {
	before := countFDs(t)
	for i := 0; i < 5; i++ {
		p, err := NewEpoll()
		if err != nil {
			t.Fatal(err)
		}
		p.Wait(clock.Mono() + int64(time.Microsecond))
	}
	for start := time.Now(); countFDs(t) != before; {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%d descriptors open before, %d after dropping pollers", before, countFDs(t))
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
