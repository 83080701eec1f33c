package wheel

// What abandoned channel timers leave behind, measured beside package
// time's in a child process (see internal/childproc), where nothing else
// allocates or frees:
//
//   - 10,000 abandoned After, Tick, NewTimer or NewTicker of an hour: the
//     allocations in use (Mallocs-Frees) after three collections. time's
//     are freed by three back-to-back runtime.GC calls (by the first, in
//     fact). stash's need three collections with the program running a
//     moment between them: the wheel weakens after the first (see
//     intake.go), the second frees the channels and runs their cleanups
//     (see weakchan.go), the third frees the entries. Back to back, the
//     weakening overlaps the second collection and the count is logged.
//   - The hot-loop idiom select { case <-work: case <-After(time.Minute): }
//     run a million times: the heap it leaves after four collections,
//     paced as above. Back to back, the sweep of a million timers and
//     their million cleanups race the collections, and what is left after
//     the fourth depends on how much processor they got: 1 to 20 B per
//     iteration from run to run on two cores.

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
)

// abandonChildren runs the measurements, one child each; the scenario
// "report" reads its spec (impl/mode/kind, or impl/hot/iterations) from
// abandonSpecEnv.
var abandonChildren = &childproc.Set{
	Env:  "STASHTIME_ABANDON_CHILD",
	Test: "TestAbandonChild",
}

const abandonSpecEnv = "STASHTIME_ABANDON_SPEC"

func init() {
	abandonChildren.Scenarios = map[string]func(){"report": abandonChild}
}

// An abandonReport is what a child measured: allocations in use per
// abandoned timer after each collection (collect), or heap bytes retained
// per iteration (hot).
type abandonReport struct {
	PerTimer []float64 `json:"per_timer,omitempty"`
	PerIter  float64   `json:"per_iter,omitempty"`
}

// runAbandonChild runs the child scenario spec (impl/mode/kind, or
// impl/hot/iterations) and returns its report.
func runAbandonChild(t *testing.T, spec string) abandonReport {
	t.Helper()
	r := abandonChildren.Run(t, "report", 2*time.Minute, abandonSpecEnv+"="+spec)
	if r.Code != 0 {
		t.Fatalf("child %s: exit %d (timed out: %v); stderr:\n%s\nstdout:\n%s", spec, r.Code, r.TimedOut, r.Stderr, r.Stdout)
	}
	for line := range strings.Lines(r.Stdout) {
		if rest, ok := strings.CutPrefix(line, "REPORT "); ok {
			var rep abandonReport
			if err := json.Unmarshal([]byte(rest), &rep); err != nil {
				t.Fatalf("child %s: %v", spec, err)
			}
			return rep
		}
	}
	t.Fatalf("child %s reported nothing; stdout:\n%s", spec, r.Stdout)
	return abandonReport{}
}

// TestAbandonChild is the child's body; it is skipped in the parent.
func TestAbandonChild(t *testing.T) { abandonChildren.Serve(t) }

// abandonChild measures what the spec in abandonSpecEnv names and prints
// its report.
func abandonChild() {
	t := abandonChildren.T
	spec := os.Getenv(abandonSpecEnv)
	f := strings.Split(spec, "/")
	if len(f) != 3 {
		t.Fatalf("%s=%q: want impl/mode/arg", abandonSpecEnv, spec)
	}
	var r abandonReport
	if f[1] == "hot" {
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatal(err)
		}
		r.PerIter = hotAfterLoop(t, f[0] == "stash", n)
	} else {
		r.PerTimer = collectAbandoned(t, f[0] == "stash", strings.HasPrefix(f[1], "paced"), strings.HasSuffix(f[1], "-eager"), f[2])
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("REPORT %s\n", b)
}

func allocsInUse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Mallocs - ms.Frees)
}

// abandonSink keeps the compiler from dropping what a maker returns, and
// is cleared before the collections.
var abandonSink any

func abandonMaker(stash bool, kind string) func() {
	const d = time.Hour
	switch kind + map[bool]string{true: "/stash", false: "/time"}[stash] {
	case "After/stash":
		return func() { abandonSink = After(d) }
	case "Tick/stash":
		return func() { abandonSink = Tick(d) }
	case "NewTimer/stash":
		return func() { abandonSink = NewTimer(d) }
	case "NewTicker/stash":
		return func() { abandonSink = NewTicker(d) }
	case "After/time":
		return func() { abandonSink = time.After(d) }
	case "Tick/time":
		return func() { abandonSink = time.Tick(d) }
	case "NewTimer/time":
		return func() { abandonSink = time.NewTimer(d) }
	case "NewTicker/time":
		return func() { abandonSink = time.NewTicker(d) }
	}
	panic("unknown kind " + kind)
}

// collectAbandoned abandons 10,000 timers of kind and returns the
// allocations in use per timer after each of six collections, counted from
// before they were made. Paced (stash only), the first three collections
// are each followed by waiting for what the wheel does after it: the
// intake's sweep, the cleanups that stop the abandoned timers, the drain
// that lets go of the listings to be filed. Otherwise they are back to
// back. Eager, a sweep has first found a few dozen abandoned timers of the
// kind pending, as it does in a program that abandons timers all along,
// and the intake is eager (see intake.go).
func collectAbandoned(t *testing.T, stash, paced, eager bool, kind string) []float64 {
	const n = 10_000
	mk := abandonMaker(stash, kind)
	var in *intake
	if stash {
		in = &Default().intake
	}
	settle := func() {
		for range 3 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		if stash {
			waitUntil(t, "settled", func() bool { return sweepIdle(in) && Default().Stats().Live == 0 })
			Default().Sync()
		}
		runtime.GC()
	}
	mk() // the first of a kind allocates what the rest reuse
	if eager {
		for range 4 * sweepSample {
			mk()
		}
		// A pass drains them to toWeaken, where the sweep counts them
		// toward eagerness (one listed to be filed is weakened uncounted).
		Default().Sync()
	}
	abandonSink = nil
	settle()
	if eager && !in.eager.Load() {
		t.Fatal("the intake is not eager after a sweep found abandoned timers pending")
	}
	before := allocsInUse()
	for range n {
		mk()
	}
	abandonSink = nil
	var per []float64
	for i := range 6 {
		var swept uint64
		var armed bool
		if stash {
			swept, armed = in.begun.Load(), in.armed.Load()
		}
		runtime.GC()
		if paced && i == 0 { // unless a collection while they were made swept them
			waitUntil(t, "swept", func() bool { return (!armed || in.begun.Load() != swept) && sweepIdle(in) })
		}
		if paced && i == 1 {
			waitUntil(t, "stopped", func() bool { return Default().Stats().Live == 0 })
			Default().Sync() // a pass: the drain lets go of the listings to be filed
		}
		if paced || i >= 2 {
			per = append(per, float64(allocsInUse()-before)/n)
		} else {
			per = append(per, -1) // not read: back to back
		}
	}
	return per
}

// hotAfterLoop runs the select idiom n times, ch always winning, and
// returns the heap it leaves after four collections, per iteration. With
// stash, the program waits after the first collection for the sweep it
// starts, and after the second for the channels' cleanups, as
// collectAbandoned's paced mode does.
func hotAfterLoop(t *testing.T, stash bool, n int) float64 {
	after := time.After
	if stash {
		after = After
		NewTimer(time.Hour).Stop()
	}
	ch := make(chan int, 1)
	runtime.GC()
	runtime.GC()
	before := heapAlloc()
	sum := 0
	for i := range n {
		ch <- i
		select {
		case <-after(time.Minute):
			panic("a minute passed")
		case m := <-ch:
			sum += m
		}
	}
	for i := range 4 {
		var swept uint64
		armed := false
		if stash {
			in := &Default().intake
			swept, armed = in.begun.Load(), in.armed.Load()
		}
		runtime.GC()
		if stash && i == 0 { // unless a collection in the loop swept them
			in := &Default().intake
			waitUntil(t, "swept", func() bool { return (!armed || in.begun.Load() != swept) && sweepIdle(in) })
		}
		if stash && i == 1 {
			waitUntil(t, "stopped", func() bool { return Default().Stats().Live == 0 })
			Default().Sync() // a pass: the drain lets go of the listings to be filed
		}
	}
	runtime.KeepAlive(sum)
	return (float64(heapAlloc()) - float64(before)) / float64(n)
}

// TestAbandonedFreedByCollections: 10,000 abandoned channel timers of each
// kind are freed, entry, slot and channel, by three collections with the
// program running between them: allocations in use grow by less than one
// per timer, as they do with package time after three back-to-back
// runtime.GC calls. The back-to-back figures of both are logged.
func TestAbandonedFreedByCollections(t *testing.T) {
	skipIfChecked(t)
	if testing.Short() || raceEnabled {
		t.Skip("measures allocations of 10,000 timers in child processes")
	}
	for _, kind := range []string{"After", "Tick", "NewTimer", "NewTicker"} {
		t.Run(kind, func(t *testing.T) {
			tm := runAbandonChild(t, "time/b2b/"+kind)
			paced := runAbandonChild(t, "stash/paced/"+kind)
			b2b := runAbandonChild(t, "stash/b2b/"+kind)
			eager := runAbandonChild(t, "stash/b2b-eager/"+kind)
			t.Logf("allocations in use per abandoned timer after GC 3..6: time back to back %.2f; stash back to back %.2f, eager %.2f",
				tm.PerTimer[2:], b2b.PerTimer[2:], eager.PerTimer[2:])
			t.Logf("stash, paced, after GC 1..6: %.2f", paced.PerTimer)
			if tm.PerTimer[2] >= 1 {
				t.Errorf("time, after three back-to-back collections (the control): %.2f allocations in use per timer, want < 1", tm.PerTimer[2])
			}
			if paced.PerTimer[2] >= 1 {
				t.Errorf("stash, after three paced collections: %.2f allocations in use per timer, want < 1", paced.PerTimer[2])
			}
		})
	}
}

// TestAbandonedAfterHotLoopFlat: a million iterations of
// select { case <-work: case <-After(time.Minute): } leave at most 1 byte
// per abandoned timer after four paced collections (package time's: none
// after four back to back).
func TestAbandonedAfterHotLoopFlat(t *testing.T) {
	skipIfChecked(t)
	if testing.Short() || raceEnabled {
		t.Skip("runs a million timers in child processes")
	}
	const n = 1_000_000
	tm := runAbandonChild(t, "time/hot/"+strconv.Itoa(n))
	st := runAbandonChild(t, "stash/hot/"+strconv.Itoa(n))
	t.Logf("retained after four collections, B per iteration: time %.2f, stash %.2f", tm.PerIter, st.PerIter)
	if st.PerIter > 1 {
		t.Errorf("stash retained %.2f B per abandoned After, want at most 1", st.PerIter)
	}
}
