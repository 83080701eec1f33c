package stash

import (
	"sync/atomic"
	"unsafe"
)

// slots is the store's primitive: a lazily grown array of atomic pointers.
// Its chunks of chunk slots each are allocated on first use and published
// with CAS, so concurrent producers never wait on each other. A new chunk is
// filled with fill (nil for levels, the sentinel for leaves) before it is
// published.
//
// A chunk is a Go slice whose first element's address is kept; slot i of a
// chunk is at that address plus i pointers. The address keeps the whole
// chunk alive for the collector. The first chunk's pointer sits in the
// struct itself, so reaching the first chunk costs no extra load from
// another cache line.
type slots struct {
	first unsafe.Pointer   // chunk 0, read and written atomically
	rest  []unsafe.Pointer // chunks 1 and up, likewise; nil if there are none
}

func makeSlots(n, chunk int) slots {
	if n <= chunk {
		return slots{}
	}
	return slots{rest: make([]unsafe.Pointer, (n+chunk-1)/chunk-1)}
}

// at returns the address of slot i. With spawn it allocates the chunk if
// needed; without, it returns nil when the chunk does not exist yet.
func (s *slots) at(i, chunk int, spawn bool, fill unsafe.Pointer) *unsafe.Pointer {
	q, r := divmod(uint64(i), uint64(chunk))
	c := &s.first
	if q > 0 {
		c = &s.rest[q-1]
	}
	p := atomic.LoadPointer(c)
	if p == nil {
		if !spawn {
			return nil
		}
		p = newChunk(chunk, fill)
		if !atomic.CompareAndSwapPointer(c, nil, p) {
			p = atomic.LoadPointer(c)
		}
	}
	return (*unsafe.Pointer)(unsafe.Add(p, uintptr(r)*unsafe.Sizeof(p)))
}

func newChunk(n int, fill unsafe.Pointer) unsafe.Pointer {
	c := make([]unsafe.Pointer, n)
	if fill != nil {
		for i := range c {
			c[i] = fill
		}
	}
	return unsafe.Pointer(&c[0])
}
