package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// The load workloads are what a server swapping the import runs: timers
// that fire, about 100k a second, in chains of AfterFunc, tickers and
// sleeping goroutines, and the same with every core busy. For each they
// measure the process's CPU time (user+sys, from getrusage) per fired timer
// and how late the timers fired.
//
// The lateness of a fire is measured against its schedule: an AfterFunc
// chain's deadline, a ticker's phase (its start plus a whole number of
// periods), a sleeper's start plus d.

// loadCase is one load row group: n goroutines, each firing a timer of
// period d again and again.
type loadCase struct {
	name string
	kind loadKind
	n    int
	d    time.Duration
	busy bool // every P also runs a busy loop
}

type loadKind int

const (
	loadChain  loadKind = iota // AfterFunc(d, f), f re-arms
	loadTicker                 // for range NewTicker(d).C
	loadSleep                  // for { Sleep(d) }
)

// No case sleeps 1 ms or more: stashtime.Sleep is time.Sleep there, and
// such a row would compare package time with itself.
var loadCases = []loadCase{
	{"afterfunc chain 1000x10ms", loadChain, 1000, 10 * time.Millisecond, false},
	{"ticker 1000x10ms", loadTicker, 1000, 10 * time.Millisecond, false},
	{"sleep 100x250µs", loadSleep, 100, 250 * time.Microsecond, false},
	{"saturated chain 1000x10ms", loadChain, 1000, 10 * time.Millisecond, true},
}

func loadSteps(c *config) int { return len(loadCases) * 2 * c.loadRounds }

// load runs every load case on both implementations, alternating, and adds
// rows for CPU per fire and lateness p50 and p99.
func load(r *runner) {
	for _, lc := range loadCases {
		var cpu [2][]float64
		var late [2][][]time.Duration // per round
		var errs []string
		for round := range r.cfg.loadRounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, lc.name)
				res := runLoad(im, lc, r.cfg.loadTime)
				k := implIndex(im)
				if res.fires == 0 {
					errs = append(errs, im.name+": nothing fired")
					cpu[k] = append(cpu[k], nan)
				} else {
					cpu[k] = append(cpu[k], float64(res.cpu)/float64(res.fires))
				}
				late[k] = append(late[k], res.late)
				runtime.GC()
				r.prog.step()
			}
		}
		// With busy loops, which soak up whatever CPU the timers leave,
		// the process's CPU says nothing about the timers.
		if !lc.busy {
			rw := newRow(lc.name, "CPU/fire", unitNs, cpu[0], cpu[1])
			rw.note = joinErrs(errs)
			r.res.add(rw)
		}
		for _, p := range []struct {
			metric string
			q      float64
		}{{"p50 late", 0.50}, {"p99 late", 0.99}} {
			r.res.add(newRow(lc.name, p.metric, unitNs, percentiles(late[0], p.q), percentiles(late[1], p.q)))
		}
	}
}

// loadResult is what one run of a load case measured.
type loadResult struct {
	fires int64
	cpu   time.Duration   // process CPU over the measured window
	late  []time.Duration // a sample of the lateness of the fires in it
}

// runLoad runs lc on im for a warm-up and then for dur, and measures the
// second part.
func runLoad(im *impl, lc loadCase, dur time.Duration) loadResult {
	var (
		measuring atomic.Bool
		stop      atomic.Bool
		fires     atomic.Int64
		wg        sync.WaitGroup
		mu        sync.Mutex
		late      []time.Duration
	)
	// Each goroutine keeps every 16th lateness it sees, from the first
	// on (a saturated chain in -quick's short window fires only a few
	// times), and hands them over when it ends.
	record := func(buf *[]time.Duration, i *int, l time.Duration) {
		if !measuring.Load() {
			return
		}
		fires.Add(1)
		if *i++; *i%16 == 1 {
			*buf = append(*buf, l)
		}
	}
	hand := func(buf []time.Duration) {
		mu.Lock()
		late = append(late, buf...)
		mu.Unlock()
	}
	if lc.busy {
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					spin()
				}
			}()
		}
	}
	for g := range lc.n {
		wg.Add(1)
		// Spread the goroutines' phases over one period.
		phase := lc.d * time.Duration(g) / time.Duration(lc.n)
		switch lc.kind {
		case loadChain:
			go runChain(im, lc.d, phase, &stop, &wg, record, hand)
		case loadTicker:
			go runTicker(im, lc.d, phase, &stop, &wg, record, hand)
		case loadSleep:
			go runSleeper(im, lc.d, phase, &stop, &wg, record, hand)
		}
	}
	cpu := measureWindow(dur, &measuring, lc.name+" "+im.name)
	n := fires.Load()
	stop.Store(true)
	wg.Wait()
	return loadResult{fires: n, cpu: cpu, late: late}
}

// measureWindow lets a workload warm up for dur/4, then sets measuring
// for dur and returns the process CPU spent meanwhile. what names the run
// for -cpuprofile (see window).
func measureWindow(dur time.Duration, measuring *atomic.Bool, what string) time.Duration {
	time.Sleep(dur / 4)
	c0 := processCPU()
	measuring.Store(true)
	window(dur, what)
	measuring.Store(false)
	return processCPU() - c0
}

// spin burns a little CPU.
func spin() {
	x := 1
	for i := range 10_000 {
		x = x*31 + i
	}
	spinSink.Store(int64(x))
}

var spinSink atomic.Int64

type recordFunc = func(buf *[]time.Duration, i *int, l time.Duration)

func runChain(im *impl, d, phase time.Duration, stop *atomic.Bool, wg *sync.WaitGroup, record recordFunc, hand func([]time.Duration)) {
	var (
		buf  []time.Duration
		i    int
		want time.Time
		f    func()
	)
	f = func() {
		now := time.Now()
		record(&buf, &i, now.Sub(want))
		if stop.Load() {
			hand(buf)
			wg.Done()
			return
		}
		want = now.Add(d)
		im.afterFunc(d, f)
	}
	want = time.Now().Add(phase)
	im.afterFunc(phase, f)
}

func runTicker(im *impl, d, phase time.Duration, stop *atomic.Bool, wg *sync.WaitGroup, record recordFunc, hand func([]time.Duration)) {
	defer wg.Done()
	var (
		buf []time.Duration
		i   int
	)
	im.sleep(phase)
	start := time.Now()
	tk, c := im.newTicker(d)
	for range c {
		since := time.Since(start)
		record(&buf, &i, since-since/d*d)
		if stop.Load() {
			break
		}
	}
	tk.Stop()
	hand(buf)
}

func runSleeper(im *impl, d, phase time.Duration, stop *atomic.Bool, wg *sync.WaitGroup, record recordFunc, hand func([]time.Duration)) {
	defer wg.Done()
	var (
		buf []time.Duration
		i   int
	)
	im.sleep(phase)
	for !stop.Load() {
		t0 := time.Now()
		im.sleep(d)
		record(&buf, &i, time.Since(t0)-d)
	}
	hand(buf)
}

// processCPU is measure.ProcessCPU; bench cannot go on without it.
func processCPU() time.Duration {
	c, err := measure.ProcessCPU()
	if err != nil {
		panic(err)
	}
	return c
}

// ticker is what runTicker needs of a *time.Ticker or a *stashtime.Ticker.
type ticker interface{ Stop() }
