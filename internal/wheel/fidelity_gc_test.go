package wheel

// Rule 16 of docs/semantics.md: since Go 1.23 an unreferenced, unstopped
// After, NewTimer, Tick or NewTicker is garbage collected, while a pending
// AfterFunc stays alive until it fires. The wheel holds a channel timer only
// through a weak pointer to the channel's runtime header.

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
	"weak"
)

func gcN(n int) {
	for range n {
		runtime.GC()
	}
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func countCleanup(n *atomic.Int64) { n.Add(1) }

// settleCleanups runs GCs until the cleanups counted by n reach want or
// stop growing for five rounds (they run on the runtime's cleanup
// goroutine, after the cycle that found the object dead; the wheel weakens
// its channels a cycle later, on a goroutine of its own), at most about a
// second.
func settleCleanups(n *atomic.Int64, want int64) {
	last, still := int64(-1), 0
	for range 50 {
		gcN(1)
		time.Sleep(10 * time.Millisecond)
		c := n.Load()
		if c == last {
			still++
		} else {
			still = 0
		}
		if c >= want || still >= 5 {
			return
		}
		last = c
	}
}

// A channel-timer constructor under test: it returns the channel, and
// registers a cleanup counted by structs on the Timer or Ticker it made, if
// it made one the caller could have kept.
type chanKind struct {
	name string
	make func(structs *atomic.Int64) <-chan Time
}

func stashChanKinds(d Duration) []chanKind {
	return []chanKind{
		{"After", func(*atomic.Int64) <-chan Time { return After(d) }},
		{"Tick", func(*atomic.Int64) <-chan Time { return Tick(d) }},
		{"NewTimer", func(s *atomic.Int64) <-chan Time {
			t := NewTimer(d)
			runtime.AddCleanup(t, countCleanup, s)
			return t.C
		}},
		{"NewTicker", func(s *atomic.Int64) <-chan Time {
			t := NewTicker(d)
			runtime.AddCleanup(t, countCleanup, s)
			return t.C
		}},
	}
}

func timeChanKinds(d Duration) []chanKind {
	return []chanKind{
		{"After", func(*atomic.Int64) <-chan Time { return time.After(d) }},
		{"Tick", func(*atomic.Int64) <-chan Time { return time.Tick(d) }},
		{"NewTimer", func(s *atomic.Int64) <-chan Time {
			t := time.NewTimer(d)
			runtime.AddCleanup(t, countCleanup, s)
			return t.C
		}},
		{"NewTicker", func(s *atomic.Int64) <-chan Time {
			t := time.NewTicker(d)
			runtime.AddCleanup(t, countCleanup, s)
			return t.C
		}},
	}
}

// abandonResult is what abandoning n timers of one kind left behind.
type abandonResult struct {
	aliveHeaders   int     // channel headers still reachable after GC
	headerCleanups int64   // cleanups run on channel headers
	structCleanups int64   // cleanups run on the Timer/Ticker structs (0 for After, Tick)
	retainedPer    float64 // HeapAlloc growth after GC, bytes per abandoned timer
}

// abandon makes n timers of kind k, drops every reference to them, runs
// the collector and counts what survived.
func abandon(n int, k chanKind) abandonResult {
	ws := make([]weak.Pointer[hchan], n)
	var headers, structs atomic.Int64
	gcN(3)
	before := heapAlloc()
	for i := range ws {
		h := headerOf(k.make(&structs))
		// The wheel already made a weak handle for this header; weak.Make
		// returns the same handle, so ws adds only its own slice.
		ws[i] = weak.Make(h)
		runtime.AddCleanup(h, countCleanup, &headers)
	}
	settleCleanups(&headers, int64(n))
	if k.name == "NewTimer" || k.name == "NewTicker" {
		// Cleanups run on one goroutine, the wheel's own among them:
		// wait for the structs' turn too.
		settleCleanups(&structs, int64(n))
	}
	gcN(3)
	after := heapAlloc()
	alive := 0
	for _, p := range ws {
		if p.Value() != nil {
			alive++
		}
	}
	runtime.KeepAlive(ws)
	return abandonResult{
		aliveHeaders:   alive,
		headerCleanups: headers.Load(),
		structCleanups: structs.Load(),
		retainedPer:    (float64(after) - float64(before)) / float64(n),
	}
}

// TestFidelityGCAbandonedChannelTimers: 10,000 unreferenced After, Tick,
// NewTimer and NewTicker of an hour each are collected (channel header and
// Timer/Ticker struct) after a few GCs, as with package time. What the
// wheel keeps per abandoned timer until its deadline bucket is walked (the
// entry "husk": entry, weak handle, store slot) is logged beside time's.
func TestFidelityGCAbandonedChannelTimers(t *testing.T) {
	skipIfChecked(t)
	if testing.Short() {
		t.Skip("allocates 80,000 timers")
	}
	const n = 10_000
	Default() // the driver and its store exist before the first measurement
	impls := []struct {
		name  string
		kinds []chanKind
	}{
		{"stash", stashChanKinds(time.Hour)},
		{"time", timeChanKinds(time.Hour)},
	}
	for _, impl := range impls {
		for _, k := range impl.kinds {
			t.Run(fmt.Sprintf("impl=%s/%s", impl.name, k.name), func(t *testing.T) {
				r := abandon(n, k)
				t.Logf("%d abandoned: %d headers alive, %d header cleanups, %d struct cleanups, %.1f B/timer retained after GC",
					n, r.aliveHeaders, r.headerCleanups, r.structCleanups, r.retainedPer)
				if r.aliveHeaders > n/100 {
					t.Errorf("%d of %d abandoned channel headers still alive after GC", r.aliveHeaders, n)
				}
				if k.name == "NewTimer" || k.name == "NewTicker" {
					if r.structCleanups < n-n/100 {
						t.Errorf("only %d of %d abandoned %s structs collected", r.structCleanups, n, k.name)
					}
				}
				// The husk is an entry (80 B size class), the weak handle and a
				// store slot: well under 256 B. A leaked channel and Timer would
				// add ~200 B more.
				if impl.name == "stash" && r.retainedPer > 200 {
					t.Errorf("%.1f B retained per abandoned timer", r.retainedPer)
				}
			})
		}
	}
	t.Logf("entry size %d B (allocated in the %d B size class)", unsafe.Sizeof(Entry{}), roundSizeClass(unsafe.Sizeof(Entry{})))
}

// roundSizeClass rounds a small size up to the runtime's size class (the
// classes up to 128 B are multiples of 16 above 16).
func roundSizeClass(n uintptr) uintptr {
	switch {
	case n <= 8:
		return 8
	case n <= 16:
		return 16
	}
	return (n + 15) &^ 15
}

// TestFidelityGCAbandonedTickStopsTicking: an abandoned Tick does not tick
// forever: after its channel is collected, its next tick drops the entry
// (Live goes back to 0 and Fired stops growing). A referenced ticker on the
// same wheel keeps ticking.
func TestFidelityGCAbandonedTickStopsTicking(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	const n = 1000
	var headers atomic.Int64
	for range n {
		runtime.AddCleanup(headerOf(w.Tick(time.Second)), countCleanup, &headers)
	}
	kept := w.NewTicker(time.Second)
	settleCleanups(&headers, n)
	if got := headers.Load(); got < n-n/100 {
		t.Fatalf("only %d of %d abandoned Tick channels collected", got, n)
	}
	if live := w.Stats().Live; live != n+1 {
		t.Logf("Live before the first tick: %d", live)
	}
	ticks := 0
	for i := 1; i <= 3; i++ {
		clk.Advance(time.Second)
		w.Sync()
		select {
		case <-kept.C:
			ticks++
		default:
		}
	}
	s1 := w.Stats()
	clk.Advance(time.Second)
	w.Sync()
	s2 := w.Stats()
	if ticks != 3 {
		t.Errorf("kept ticker ticked %d times in 3 periods", ticks)
	}
	if s1.Live != 1 {
		t.Errorf("Live after abandoned ticks came due: %d, want 1 (the kept ticker)", s1.Live)
	}
	if d := s2.Fired - s1.Fired; d != 1 {
		t.Errorf("one more period fired %d timers, want 1 (the kept ticker)", d)
	}
	kept.Stop()
}

// TestFidelityGCBlockedReceiverGetsValue: a goroutine blocked on <-After(d),
// or ranging over a Tick, with no other reference to the channel, keeps the
// channel alive and receives its values while the collector runs.
func TestFidelityGCBlockedReceiverGetsValue(t *testing.T) {
	done := make(chan string, 2)
	go func() {
		v := <-After(50 * time.Millisecond)
		done <- fmt.Sprint("After: ", v.Round(0).Format(time.StampMicro))
	}()
	go func() {
		n := 0
		for range Tick(10 * time.Millisecond) {
			if n++; n == 5 {
				break
			}
		}
		done <- "Tick: 5 ticks"
	}()
	stop := make(chan struct{})
	var gcs atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				gcs.Add(1)
			}
		}
	}()
	defer close(stop)
	for range 2 {
		select {
		case s := <-done:
			t.Log(s)
		case <-time.After(10 * time.Second):
			t.Fatalf("a receiver blocked on an otherwise unreferenced timer channel got nothing (%d GCs ran)", gcs.Load())
		}
	}
	if gcs.Load() == 0 {
		t.Error("no GC ran while the receivers were blocked")
	}
}

// TestFidelityGCAfterFuncStrong: a pending AfterFunc is not collected
// before it fires even when nothing references its Timer, as in the
// runtime: every callback runs, and no Timer is collected first.
func TestFidelityGCAfterFuncStrong(t *testing.T) {
	skipIfChecked(t)
	const n = 1000
	var ran, structs atomic.Int64
	var collectedBeforeRun atomic.Int64
	all := make(chan struct{})
	for range n {
		tm := AfterFunc(100*time.Millisecond, func() {
			if ran.Add(1) == n {
				close(all)
			}
		})
		runtime.AddCleanup(tm, countCleanup, &structs)
	}
	gcN(3)
	time.Sleep(20 * time.Millisecond) // let cleanups, if any were queued, run
	gcN(1)
	collectedBeforeRun.Store(structs.Load() - ran.Load())
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatalf("only %d of %d unreferenced AfterFunc callbacks ran", ran.Load(), n)
	}
	if c := collectedBeforeRun.Load(); c > 0 {
		t.Errorf("%d pending AfterFunc Timers were collected before firing", c)
	}
	// Once fired, they are garbage like any other.
	settleCleanups(&structs, n)
	if got := structs.Load(); got < n-n/100 {
		t.Errorf("only %d of %d fired AfterFunc Timers collected", got, n)
	}
}

// BenchmarkAfterSelectLoop: the hot loop
//
//	for { select { case <-After(time.Hour): ...; case m := <-ch: ... } }
//
// where ch always wins. retained-B/op is the heap growth after GC divided by
// the iterations: what each abandoned After leaves behind while its hour is
// not up. For stash it runs on a fresh wheel closed at the end, so the husks
// of one run do not weigh on the next.
//
//	go test -run '^$' -bench BenchmarkAfterSelectLoop -benchtime 1000000x ./stashtime/
func BenchmarkAfterSelectLoop(b *testing.B) {
	for _, impl := range []string{"time", "stash"} {
		b.Run("impl="+impl, func(b *testing.B) {
			after := time.After
			if impl == "stash" {
				w, err := NewWheel(Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				after = w.After
			}
			ch := make(chan int, 1)
			gcN(2)
			before := heapAlloc()
			b.ReportAllocs()
			b.ResetTimer()
			sum := 0
			for i := 0; i < b.N; i++ {
				ch <- i
				select {
				case <-after(time.Hour):
					b.Fatal("an hour passed")
				case m := <-ch:
					sum += m
				}
			}
			b.StopTimer()
			gcN(2)
			growth := float64(heapAlloc()) - float64(before)
			b.ReportMetric(growth/float64(b.N), "retained-B/op")
			b.ReportMetric(growth/(1<<20), "heap-growth-MiB")
			runtime.KeepAlive(sum)
		})
	}
}

// BenchmarkNewTimerCleanupCost measures what the proposed early release of
// abandoned entries would cost NewTimer: a runtime.AddCleanup on the
// channel header (whose cleanup would mark the entry dead so that the
// driver drops it without waiting for its deadline), beside a plain
// NewTimer, and package time's NewTimer for reference. Each iteration stops
// the timer, so the wheel stays small.
//
//	go test -run '^$' -bench BenchmarkNewTimerCleanupCost ./stashtime/
func BenchmarkNewTimerCleanupCost(b *testing.B) {
	abandoned := func(*Entry) {}
	for _, v := range []string{"time", "plain", "AddCleanup"} {
		for _, par := range []bool{false, true} {
			name := "variant=" + v
			if par {
				name += "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				w, err := NewWheel(Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				one := func() {
					if v == "time" {
						time.NewTimer(10 * time.Millisecond).Stop()
						return
					}
					tm := w.NewTimer(10 * time.Millisecond)
					if v == "AddCleanup" {
						runtime.AddCleanup(headerOf(tm.C), abandoned, tm.e)
					}
					tm.Stop()
				}
				b.ReportAllocs()
				if par {
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							one()
						}
					})
					return
				}
				for i := 0; i < b.N; i++ {
					one()
				}
			})
		}
	}
}

// Rule 2 with rule 16: the user may overwrite C, and the wheel holds the
// channel only weakly, yet the Timer keeps its channel: after collections,
// Stop of a pending timer and Reset of an expired, unreceived one still
// report true, as with package time.
func TestOverwrittenCSurvivesCollection(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	var none atomic.Int64
	pending := w.NewTimer(100 * time.Second) // watched by a cleanup
	expired := w.NewTimer(2 * time.Second)   // weak, not watched
	tk := w.NewTicker(100 * time.Second)
	pending.C, expired.C, tk.C = nil, nil, nil
	settleCleanups(&none, 1)
	clk.Advance(3 * time.Second)
	w.Sync()
	if !pending.Stop() {
		t.Error("Stop of a pending timer whose C was overwritten returned false after collections")
	}
	if !expired.Reset(time.Second) {
		t.Error("Reset of an expired, unreceived timer whose C was overwritten returned false after collections")
	}
	if st := w.Stats(); st.Live != 2 { // expired (reset) and the ticker
		t.Errorf("live timers: %d, want 2 (the reset timer and the ticker)", st.Live)
	}
	expired.Stop()
	tk.Stop()
}
