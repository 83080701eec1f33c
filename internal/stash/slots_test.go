package stash

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

func TestSlotsLazyChunks(t *testing.T) {
	s := makeSlots(10, 4)
	if 1+len(s.rest) != 3 {
		t.Fatalf("%d chunk pointers for 10 slots of 4, want 3", 1+len(s.rest))
	}
	for i := range 10 {
		if s.at(i, 4, false) != nil {
			t.Fatalf("slot %d exists before any spawn", i)
		}
	}
	p := s.at(5, 4, true)
	if p == nil || *p != nil {
		t.Fatal("spawned slot missing or not empty")
	}
	// Spawning slot 5 allocated chunk 1 only: slots 4..7.
	for i := range 10 {
		exists := s.at(i, 4, false) != nil
		if exists != (i >= 4 && i < 8) {
			t.Fatalf("slot %d exists = %v", i, exists)
		}
	}
	// Slots of one chunk are consecutive pointers.
	p4, p7 := s.at(4, 4, false), s.at(7, 4, false)
	if uintptr(unsafe.Pointer(p7))-uintptr(unsafe.Pointer(p4)) != 3*unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatal("slots of a chunk are not laid out consecutively")
	}
	// Spawning again returns the same storage.
	if s.at(5, 4, true) != p {
		t.Fatal("second spawn replaced the chunk")
	}
}

// TestSlotsConcurrentSpawn has many goroutines spawn the same chunks at
// once: exactly one chunk wins each CAS, so every goroutine sees the value
// the others stored.
func TestSlotsConcurrentSpawn(t *testing.T) {
	const G, N, chunk = 8, 256, 4
	s := makeSlots(N, chunk)
	vals := make([]int, N)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range G {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := g; i < N; i += G {
				atomic.StorePointer(s.at(i, chunk, true), unsafe.Pointer(&vals[i]))
			}
		}()
	}
	close(start)
	wg.Wait()
	for i := range N {
		if got := atomic.LoadPointer(s.at(i, chunk, false)); got != unsafe.Pointer(&vals[i]) {
			t.Fatalf("slot %d lost its value (a chunk was published twice)", i)
		}
	}
}

func TestNodeMask(t *testing.T) {
	n := newNode(0, Level{Div: 1, Mod: 130, Chunk: 8})
	if len(n.mask) != 2 {
		t.Fatalf("%d mask words beyond the first for 130 slots, want 2", len(n.mask))
	}
	if got := n.next(0, 130); got != 130 {
		t.Fatalf("next on an empty node = %d, want 130", got)
	}
	for _, i := range []uint64{0, 63, 64, 129} {
		n.mark(i)
	}
	var got []uint64
	for i := n.next(0, 130); i < 130; i = n.next(i+1, 130) {
		got = append(got, i)
	}
	if len(got) != 4 || got[0] != 0 || got[1] != 63 || got[2] != 64 || got[3] != 129 {
		t.Fatalf("marked slots %v, want [0 63 64 129]", got)
	}
	n.unmark(63)
	if n.next(1, 130) != 64 {
		t.Fatal("unmark did not clear the bit")
	}
	// next never reports a slot at or past mod, even with stray high bits.
	n.word(128).Store(^uint64(0))
	if got := n.next(130, 130); got != 130 {
		t.Fatalf("next past mod = %d", got)
	}
	if got := n.next(129, 129); got != 129 {
		t.Fatalf("next with mod 129 = %d", got)
	}
}
