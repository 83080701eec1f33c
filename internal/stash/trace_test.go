package stash

import (
	"strings"
	"testing"
)

func TestOpString(t *testing.T) {
	want := []string{"add", "late", "overflow", "drain", "walk", "peep", "pending", "clean", "salvage", "retry"}
	for i, w := range want {
		if got := Op(i).String(); got != w {
			t.Errorf("Op(%d) = %q, want %q", i, got, w)
		}
	}
	if got := Op(200).String(); got != "Op(200)" {
		t.Errorf("Op(200) = %q", got)
	}
	e := Event{Op: OpClean, Key: 64, Level: 1}
	if got := e.String(); !strings.HasPrefix(got, "clean") || !strings.Contains(got, "key=64 level=1") {
		t.Errorf("Event.String() = %q", got)
	}
}

// TestTraceEvents runs a small scenario and checks the events it reports.
func TestTraceEvents(t *testing.T) {
	var got []string
	cfg := tiny()
	cfg.Trace = func(e Event) { got = append(got, e.Op.String()) }
	s := mustNew[kv](t, cfg, 0)
	s.Add(3, &kv{key: 3})
	s.Add(100, &kv{key: 100})
	for range s.Peep(10) {
	}
	walkAll(s, 10)
	s.Clean()
	walkAll(s, 2)
	s.Add(1, &kv{key: 1})
	walkAll(s, 101)
	want := "add overflow peep walk clean late add walk drain add walk"
	if strings.Join(got, " ") != want {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// TestTraceOffAllocatesNothing checks that with Trace nil a walk and a peep
// over a filled store allocate nothing, and that an Add into an existing
// bucket allocates no more than with a trace hook that itself allocates
// nothing.
func TestTraceOffAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	s := mustNew[kv](t, Config{Levels: DefaultLevels()}, 0)
	const n = 1000
	vals := make([]kv, n)
	for i := range vals {
		vals[i].key = uint64(i) << 18
		s.Add(vals[i].key, &vals[i])
	}
	end := uint64(0)
	walk := testing.AllocsPerRun(100, func() {
		end += 10 << 18
		for range s.Walk(end) {
		}
	})
	if walk != 0 {
		t.Errorf("Walk allocates %v times per call with Trace nil", walk)
	}
	peep := testing.AllocsPerRun(100, func() {
		for range s.Peep(end + 100<<18) {
		}
	})
	if peep != 0 {
		t.Errorf("Peep allocates %v times per call with Trace nil", peep)
	}

	addAllocs := func(trace func(Event)) float64 {
		cfg := Config{Levels: DefaultLevels(), LeafChunk: 1 << 12, Trace: trace}
		s := mustNew[kv](t, cfg, 0)
		v := &kv{}
		s.Add(5, v) // builds the path and the leaf's first chunk
		return testing.AllocsPerRun(1000, func() { s.Add(5, v) })
	}
	events := 0
	off, on := addAllocs(nil), addAllocs(func(Event) { events++ })
	if off != 0 {
		t.Errorf("Add into a bucket with room allocates %v times with Trace nil", off)
	}
	if events == 0 || on != off {
		t.Errorf("Add allocs: %v with a trace hook, %v without (%d events)", on, off, events)
	}
}
