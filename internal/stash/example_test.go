package stash_test

import (
	"fmt"

	"github.com/stashgo/stash/internal/stash"
)

// A store over buckets of 1 key and a span of 64: values come out of Walk in
// key order, two at one key in insertion order, a key beyond the span waits
// in the overflow area until the walk reaches it.
func Example() {
	s, err := stash.New[string](stash.Config{Levels: []stash.Level{
		{Div: 8, Mod: 8, Chunk: 4},
		{Div: 1, Mod: 8, Chunk: 4},
	}}, 0)
	if err != nil {
		panic(err)
	}
	for _, kv := range []struct {
		k uint64
		v string
	}{{5, "b"}, {3, "a"}, {5, "c"}, {100, "far"}} {
		v := kv.v
		s.Add(kv.k, &v)
	}
	fmt.Println("overflow:", s.Overflow())
	for k, v := range s.Peep(4) {
		fmt.Println("peep", k, *v)
	}
	for k, v := range s.Walk(10) {
		fmt.Println("walk", k, *v)
	}
	fmt.Println("FirstValid:", s.FirstValid())
	s.Clean()
	for k, v := range s.Walk(101) {
		fmt.Println("walk", k, *v)
	}
	// Output:
	// overflow: 1
	// peep 3 a
	// walk 3 a
	// walk 5 b
	// walk 5 c
	// FirstValid: 10
	// walk 100 far
}

// With a margin, keys within HorizonMargin of the span wait in the overflow
// area, so a key can never alias onto a slot one revolution below.
func ExampleConfig_horizonMargin() {
	s, _ := stash.New[int](stash.Config{
		Levels:        []stash.Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}},
		HorizonMargin: 8,
	}, 0)
	v := 1
	s.Add(55, &v)
	fmt.Println("55 overflow:", s.Overflow())
	s.Add(56, &v)
	fmt.Println("56 overflow:", s.Overflow())
	// Output:
	// 55 overflow: 0
	// 56 overflow: 1
}
