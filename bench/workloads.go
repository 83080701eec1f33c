package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// Live timers are pre-started timers that never fire during a run: AfterFunc
// timers with deadlines spread uniformly over [liveMin, liveMin+liveSpan).
const (
	liveMin  = time.Hour
	liveSpan = time.Hour
)

// noop is the callback of every AfterFunc that is not meant to fire.
func noop() {}

// workload is one named group of table rows; -only selects workloads by name.
type workload struct {
	name  string
	steps func(c *config) int // progress steps it will report
	run   func(r *runner)
}

// runner carries what a workload needs.
type runner struct {
	cfg  *config
	res  *results
	prog *progress
}

var workloads = []workload{
	{"afterfunc-stop", opsSteps, func(r *runner) {
		r.opsRows("afterfunc-stop", func(im *impl) func(*testing.B) {
			return func(b *testing.B) {
				for range b.N {
					im.afterFunc(time.Hour, noop).Stop()
				}
			}
		})
	}},
	{"newtimer-stop", opsSteps, func(r *runner) {
		r.opsRows("newtimer-stop", func(im *impl) func(*testing.B) {
			return func(b *testing.B) {
				for range b.N {
					t, _ := im.newTimer(time.Hour)
					t.Stop()
				}
			}
		})
	}},
	{"reset-later", func(c *config) int { return 2 * 2 * c.rounds }, resetLater},
	{"memory", func(c *config) int { return 3 * 2 * c.memRounds }, memory},
	{"drain", func(c *config) int { return 2 * c.drainRounds }, drain},
	{"burst", func(c *config) int { return 2 * c.burstRounds }, burst},
	{"lateness", func(c *config) int { return len(c.latencies) * 2 * (c.samples + 1) }, lateness},
	{"comeback", comebackSteps, comeback},
	{"net", netSteps, netRows},
	{"load", loadSteps, load},
	{"request", requestSteps, requestRows},
	{"churn", churnSteps, churn},
	{"context", contextSteps, contextRows},
	{"context-std", contextStdSteps, contextStdRows},
	{"busy", busySteps, busyRows},
}

// optIn names the workloads that a full run leaves out, for their length:
// each runs when -only names it, and small in -quick.
var optIn = []string{"busy"}

func workloadNames() []string {
	var s []string
	for _, w := range workloads {
		s = append(s, w.name)
	}
	return s
}

// startLive starts n live timers on im.
func startLive(im *impl, n int, seed uint64) []timer {
	ts := make([]timer, n)
	overPs(n, seed, func(i int, rng *rand.Rand) {
		ts[i] = im.afterFunc(liveMin+time.Duration(rng.Int64N(int64(liveSpan))), noop)
	})
	return ts
}

// overPs calls start(i, rng) for every i in [0, n). GOMAXPROCS goroutines
// take a share each, so that, as in a server, what they start is spread
// over the Ps (time's timers over the per-P heaps) rather than all on
// whichever P ran the setup.
func overPs(n int, seed uint64, start func(i int, rng *rand.Rand)) {
	procs := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			for i := p * n / procs; i < (p+1)*n/procs; i++ {
				start(i, rng)
			}
		}()
	}
	wg.Wait()
}

// stopAll stops every timer of ts, drops them and collects the garbage, so
// that the next measurement starts from a clean heap.
func stopAll(ts []timer) {
	for i, t := range ts {
		t.Stop()
		ts[i] = nil
	}
	runtime.GC()
}

// bench runs f with testing.Benchmark and returns ns/op and allocs/op (NaN
// if the benchmark failed).
func bench(f func(*testing.B)) (ns, allocs float64) {
	res := testing.Benchmark(f)
	if res.N == 0 {
		return nan, nan
	}
	return float64(res.T.Nanoseconds()) / float64(res.N), float64(res.AllocsPerOp())
}

func opsSteps(c *config) int { return len(c.liveSizes) * 2 * c.rounds }

// opsRows measures ns/op of mk's benchmark at each live-timer count, both
// implementations alternating, and adds a table row per count (plus
// allocs/op for the first count).
func (r *runner) opsRows(name string, mk func(*impl) func(*testing.B)) {
	for i, n := range r.cfg.liveSizes {
		var ns, allocs [2][]float64
		// A side measured twice in a row (see pair) keeps its live
		// timers: starting a million costs more than measuring.
		var live []timer
		var liveOf *impl
		for round := range r.cfg.rounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, "live="+measure.Count(n))
				if liveOf != im {
					stopAll(live)
					live, liveOf = startLive(im, n, uint64(round)), im
				}
				x, a := bench(mk(im))
				k := implIndex(im)
				ns[k] = append(ns[k], x)
				allocs[k] = append(allocs[k], a)
				r.prog.step()
			}
		}
		stopAll(live)
		wl := fmt.Sprintf("%s live=%s", name, measure.Count(n))
		rw := newRow(wl, "ns/op", unitNs, ns[0], ns[1])
		r.res.add(rw)
		r.res.addPoint(name, implTime.name, point{n, rw.time})
		r.res.addPoint(name, implStash.name, point{n, rw.stash})
		if i == 0 {
			r.res.add(newRow(wl, "allocs/op", unitCount, allocs[0], allocs[1]))
		}
	}
}

func implIndex(im *impl) int {
	if im == implTime {
		return 0
	}
	return 1
}

// resetLater: one pending timer pushed to a later deadline again and again
// (an idle deadline moved on every packet), serially and from every P at
// once, with cfg.resetLive other live timers.
func resetLater(r *runner) {
	n := r.cfg.resetLive
	wl := fmt.Sprintf("reset-later live=%s", measure.Count(n))
	serial := func(im *impl) func(*testing.B) {
		return func(b *testing.B) {
			t := im.afterFunc(time.Hour, noop)
			b.ResetTimer()
			for range b.N {
				t.Reset(time.Hour)
			}
			b.StopTimer()
			t.Stop()
		}
	}
	parallel := func(im *impl) func(*testing.B) {
		return func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				t := im.afterFunc(time.Hour, noop)
				for pb.Next() {
					t.Reset(time.Hour)
				}
				t.Stop()
			})
		}
	}
	for _, v := range []struct {
		metric string
		mk     func(*impl) func(*testing.B)
	}{
		{"ns/op serial", serial},
		{fmt.Sprintf("ns/op parallel (%d Ps)", runtime.GOMAXPROCS(0)), parallel},
	} {
		var ns [2][]float64
		for round := range r.cfg.rounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, v.metric)
				live := startLive(im, n, uint64(round))
				x, _ := bench(v.mk(im))
				stopAll(live)
				ns[implIndex(im)] = append(ns[implIndex(im)], x)
				r.prog.step()
			}
		}
		r.res.add(newRow(wl, v.metric, unitNs, ns[0], ns[1]))
	}
}

// memory: heap bytes per live timer, from the HeapAlloc delta (after GC) of
// starting cfg.memN timers with deadlines spread over [liveMin,
// liveMin+liveSpan).
func memory(r *runner) {
	n := r.cfg.memN
	for _, channel := range []bool{false, true} {
		kind := "afterfunc"
		if channel {
			kind = "newtimer"
		}
		var b [2][]float64
		for round := range r.cfg.memRounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, kind)
				b[implIndex(im)] = append(b[implIndex(im)], bytesPerTimer(im, n, channel, uint64(round)))
				r.prog.step()
			}
		}
		r.res.add(newRow(fmt.Sprintf("memory %s N=%s", kind, measure.Count(n)),
			fmt.Sprintf("B/timer, d in [%s,%s)", shortDur(liveMin), shortDur(liveMin+liveSpan)),
			unitBytes, b[0], b[1]))
	}
	// What a stopped timer leaves behind: memory should be O(live), so
	// started-and-stopped timers should cost nothing once collected.
	var b [2][]float64
	for round := range r.cfg.memRounds {
		for _, im := range pair(round) {
			r.prog.running(im.name, "stopped")
			b[implIndex(im)] = append(b[implIndex(im)], bytesPerStopped(im, n, uint64(round)))
			r.prog.step()
		}
	}
	r.res.add(newRow(fmt.Sprintf("memory stopped N=%s", measure.Count(n)),
		fmt.Sprintf("B retained/timer, d in [%s,%s)", shortDur(liveMin), shortDur(liveMin+liveSpan)),
		unitBytes, b[0], b[1]))
}

// bytesPerStopped is the HeapAlloc delta (after GC) per timer of starting and
// at once stopping n AfterFunc timers with deadlines over [liveMin,
// liveMin+liveSpan).
func bytesPerStopped(im *impl, n int, seed uint64) float64 {
	im.afterFunc(time.Hour, noop).Stop()
	rng := rand.New(rand.NewPCG(seed, 0x5709))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		im.afterFunc(liveMin+time.Duration(rng.Int64N(int64(liveSpan))), noop).Stop()
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

func bytesPerTimer(im *impl, n int, channel bool, seed uint64) float64 {
	// Warm up: whatever the implementation allocates once is not per timer.
	im.afterFunc(time.Hour, noop).Stop()
	t, _ := im.newTimer(time.Hour)
	t.Stop()

	rng := rand.New(rand.NewPCG(seed, 0x3e3))
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = liveMin + time.Duration(rng.Int64N(int64(liveSpan)))
	}
	ts := make([]timer, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, d := range ds {
		if channel {
			ts[i], _ = im.newTimer(d)
		} else {
			ts[i] = im.afterFunc(d, noop)
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ts)
	stopAll(ts)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// drain: cfg.drainN AfterFunc timers all due at one instant; the time from
// that instant until the last callback has run.
func drain(r *runner) {
	n := r.cfg.drainN
	var last [2][]float64
	var errs []string
	for round := range r.cfg.drainRounds {
		for _, im := range pair(round) {
			r.prog.running(im.name, measure.Count(n)+" due")
			b, err := sameInstant(im, n)
			if err != nil {
				errs = append(errs, im.name+": "+err.Error())
				b.last = -1
			}
			last[implIndex(im)] = append(last[implIndex(im)], durOrNaN(b.last))
			r.prog.step()
		}
	}
	rw := newRow("drain "+measure.Count(n), "deadline to last callback", unitNs, last[0], last[1])
	rw.note = joinErrs(errs)
	r.res.add(rw)
}

// burst: cfg.burstN AfterFunc timers due at one instant; how late the first
// and the last callback ran.
func burst(r *runner) {
	n := r.cfg.burstN
	var first, last [2][]float64
	var errs []string
	for round := range r.cfg.burstRounds {
		for _, im := range pair(round) {
			r.prog.running(im.name, measure.Count(n)+" due")
			b, err := sameInstant(im, n)
			if err != nil {
				errs = append(errs, im.name+": "+err.Error())
				b.first, b.last = -1, -1
			}
			k := implIndex(im)
			first[k] = append(first[k], durOrNaN(b.first))
			last[k] = append(last[k], durOrNaN(b.last))
			r.prog.step()
		}
	}
	wl := "burst " + measure.Count(n)
	rw := newRow(wl, "first callback late", unitNs, first[0], first[1])
	rw.note = joinErrs(errs)
	r.res.add(rw)
	rw = newRow(wl, "last callback late", unitNs, last[0], last[1])
	rw.note = joinErrs(errs)
	r.res.add(rw)
}

func durOrNaN(d time.Duration) float64 {
	if d < 0 {
		return nan
	}
	return float64(d)
}

func joinErrs(errs []string) string { return strings.Join(errs, "; ") }

type burstResult struct{ first, last time.Duration }

// sameInstant starts n AfterFunc timers that all fall due at one instant and
// reports how late the first and the last callback ran. The instant is 50 ms
// plus twice the estimated time to start them all ahead, the estimate coming
// from a pilot run. Should starting them fall behind after all, it stops them
// and tries again with a lead fitted to the rate seen.
func sameInstant(im *impl, n int) (burstResult, error) {
	const pilotN = 2000
	per := time.Duration(math.MaxInt64)
	pilot := make([]timer, pilotN)
	for range 2 { // the first pilot may be cold; keep the faster
		t0 := time.Now()
		for i := range pilot {
			pilot[i] = im.afterFunc(time.Hour, noop)
		}
		per = min(per, time.Since(t0)/pilotN)
		stopAll(pilot)
	}
	lead := 50*time.Millisecond + 2*per*time.Duration(n)
	for range 4 {
		b, rate, err := sameInstantOnce(im, n, lead)
		runtime.GC()
		if rate == 0 || err != nil {
			return b, err
		}
		lead = 50*time.Millisecond + 3*rate*time.Duration(n)
	}
	return burstResult{}, errors.New("could not start the timers before their deadline")
}

// sameInstantOnce is one try of sameInstant with the given lead. If starting
// the timers falls behind the lead it stops them and returns the time taken
// per timer so far as rate, and no result.
func sameInstantOnce(im *impl, n int, lead time.Duration) (b burstResult, rate time.Duration, err error) {
	var ran, first, last atomic.Int64
	done := make(chan struct{})
	base := time.Now()
	f := func() {
		at := int64(time.Since(base))
		first.CompareAndSwap(0, at)
		if ran.Add(1) == int64(n) {
			last.Store(at)
			close(done)
		}
	}
	ts := make([]timer, n)
	for i := range ts {
		// Every deadline is base+lead, up to the few ns between reading
		// the clock here and in the implementation.
		el := time.Since(base)
		if el >= lead-5*time.Millisecond {
			stopAll(ts[:i])
			return b, el/time.Duration(i+1) + 1, nil
		}
		ts[i] = im.afterFunc(lead-el, f)
	}
	timeout := lead + 30*time.Second + time.Duration(n)*10*time.Microsecond
	select {
	case <-done:
	case <-time.After(timeout - time.Since(base)):
		stopAll(ts)
		return b, 0, fmt.Errorf("only %d of %d callbacks ran within %v", ran.Load(), n, timeout)
	}
	clear(ts)
	return burstResult{
		first: time.Duration(first.Load()) - lead,
		last:  time.Duration(last.Load()) - lead,
	}, 0, nil
}

// lateness: sequential NewTimer(d) and a receive, for each d of
// cfg.latencies; how long after d the value arrived. The implementations
// alternate sample by sample.
func lateness(r *runner) {
	for _, d := range r.cfg.latencies {
		samples := map[string][]time.Duration{}
		var errs []string
		// One watchdog per duration, not one timer per sample: pending
		// runtime timers would weigh on time's side of the comparison.
		limit := time.Duration(2*(r.cfg.samples+1))*(d+50*time.Millisecond) + 30*time.Second
		abort := make(chan struct{})
		wd := time.AfterFunc(limit, func() { close(abort) })
		for i := -1; i < r.cfg.samples && len(errs) == 0; i++ { // i == -1: warm-up, discarded
			for _, im := range pair(i + 1) {
				r.prog.running(im.name, d.String())
				late, ok := lateOnce(im, d, abort)
				if !ok {
					errs = append(errs, fmt.Sprintf("%s: gave up after %v", im.name, limit))
					break
				}
				if i >= 0 {
					samples[im.name] = append(samples[im.name], late)
				}
				r.prog.step()
			}
		}
		wd.Stop()
		r.res.lateness[d] = samples
		r.res.latenessOrder = append(r.res.latenessOrder, d)
		wl := "lateness " + d.String()
		ts := blocks(samples[implTime.name], r.cfg.rounds)
		ss := blocks(samples[implStash.name], r.cfg.rounds)
		for _, p := range []struct {
			metric string
			q      float64
		}{{"p50 late", 0.50}, {"p99 late", 0.99}} {
			rw := newRow(wl, p.metric, unitNs, percentiles(ts, p.q), percentiles(ss, p.q))
			rw.note = joinErrs(errs)
			r.res.add(rw)
		}
	}
}

// blocks splits samples, taken in turn with the other side's, into n
// rounds of consecutive samples (fewer if there are fewer samples).
func blocks(samples []time.Duration, n int) [][]time.Duration {
	n = max(1, min(n, len(samples)))
	b := make([][]time.Duration, n)
	for i := range n {
		b[i] = samples[i*len(samples)/n : (i+1)*len(samples)/n]
	}
	return b
}

func lateOnce(im *impl, d time.Duration, abort <-chan struct{}) (late time.Duration, ok bool) {
	start := time.Now()
	t, c := im.newTimer(d)
	select {
	case <-c:
		return time.Since(start) - d, true
	case <-abort:
		t.Stop()
		return 0, false
	}
}

// shortDur formats d without trailing zero units: 1h, not 1h0m0s.
func shortDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
		s = strings.TrimSuffix(s, "h0m")
		if !strings.HasSuffix(s, "m") && strings.Contains(d.String(), "h") {
			s += "h"
		}
	}
	return s
}
