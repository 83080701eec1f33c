// Command tour walks through the stash store (internal/stash), the
// lock-free hierarchical slot store under stash's timer wheel, as the C++
// seed's demo does:
//
//   - how a key descends to its bucket through the levels, slot
//     (key / Div) % Mod at each one, on a small two-level geometry;
//   - adding values at scattered keys, two at one key kept in insertion
//     order;
//   - peeping at what is due without consuming it;
//   - walking a window, which drains in key order and skips the empty
//     stretches;
//   - the horizon guard: a key a full span out is not an error, it waits in
//     the overflow area and enters the tree when the span reaches it;
//   - a small producer/consumer run: several goroutines add, one consumer
//     drains, and every value comes out exactly once.
//
// The output is the same on every run.
package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/stashgo/stash/internal/stash"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

// levels is a geometry chosen to be read in decimal: ten slots of ten keys
// over buckets of one key, a span of 100 keys.
var levels = []stash.Level{{Div: 10, Mod: 10, Chunk: 4}, {Div: 1, Mod: 10, Chunk: 4}}

func run(w io.Writer) error {
	s, err := stash.New[string](stash.Config{Levels: levels}, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "geometry: %d levels, span %d, bucket %d\n", len(levels), s.Span(), s.Bucket())

	fmt.Fprintln(w, "\n== descent")
	for _, key := range []uint64{47, 7} {
		fmt.Fprintf(w, "key %d:", key)
		for i, l := range levels {
			fmt.Fprintf(w, " level %d slot (%d/%d)%%%d = %d;", i, key, l.Div, l.Mod, (key/l.Div)%l.Mod)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, "\n== add")
	adds := []struct {
		key uint64
		v   string
	}{{42, "forty-two"}, {7, "seven (first)"}, {19, "nineteen"}, {7, "seven (second)"}, {88, "eighty-eight"}}
	for _, a := range adds {
		v := a.v
		s.Add(a.key, &v)
		fmt.Fprintf(w, "add %2d %q\n", a.key, a.v)
	}
	fmt.Fprintf(w, "FirstValid %d, LastValid %d\n", s.FirstValid(), s.LastValid())

	fmt.Fprintln(w, "\n== peep below 20 (consumes nothing)")
	for b, v := range s.Peep(20) {
		fmt.Fprintf(w, "peep bucket %2d: %s\n", b, *v)
	}
	fmt.Fprintf(w, "FirstValid still %d\n", s.FirstValid())

	fmt.Fprintln(w, "\n== walk below 50 (consumes, in key order)")
	n, buckets := 0, map[uint64]bool{}
	for b, v := range s.Walk(50) {
		fmt.Fprintf(w, "walk bucket %2d: %s\n", b, *v)
		n++
		buckets[b] = true
	}
	fmt.Fprintf(w, "%d values from %d buckets of a 50-key window, the empty ones skipped; FirstValid %d\n",
		n, len(buckets), s.FirstValid())
	fmt.Fprintf(w, "Clean reclaimed %d subtrees below FirstValid\n", s.Clean())

	fmt.Fprintln(w, "\n== horizon")
	far := s.FirstValid() + s.Span()
	v := "one span out"
	s.Add(far, &v)
	fmt.Fprintf(w, "add %d (FirstValid %d + span %d): overflow holds %d\n", far, s.FirstValid(), s.Span(), s.Overflow())
	for _, end := range []uint64{100, far, far + 1} {
		got := 0
		for b, v := range s.Walk(end) {
			fmt.Fprintf(w, "walk below %d: bucket %d: %s\n", end, b, *v)
			got++
		}
		fmt.Fprintf(w, "walk below %d: %d values; overflow holds %d\n", end, got, s.Overflow())
	}

	fmt.Fprintln(w, "\n== producers and one consumer")
	const producers, each = 4, 2500
	start := s.FirstValid()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				v := fmt.Sprint(p, "/", i)
				s.Add(start+uint64(i%90), &v)
			}
		}()
	}
	seen := make(map[string]int)
	end := start
	drain := func() {
		end += 10
		for _, v := range s.Walk(end) {
			seen[*v]++
		}
		s.Clean()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			if end < start+90 {
				drain()
			}
		}
	}
	for end < start+100 {
		drain()
	}
	once := len(seen) == producers*each
	for _, c := range seen {
		once = once && c == 1
	}
	fmt.Fprintf(w, "%d producers added %d values; the consumer walked %d distinct values, each exactly once: %v\n",
		producers, producers*each, len(seen), once)
	return nil
}
