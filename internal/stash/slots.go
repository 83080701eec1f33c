package stash

import (
	"sync/atomic"
	"unsafe"
)

// slots is the store's primitive: a lazily grown array of atomic pointers.
// Its chunks of chunk slots each are allocated on first use and published
// with CAS, so concurrent producers never wait on each other. A node's
// children live in one (leaves grow by segments instead, see leaf).
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
func (s *slots) at(i, chunk int, spawn bool) *unsafe.Pointer {
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
		p = unsafe.Pointer(&make([]unsafe.Pointer, chunk)[0])
		if !atomic.CompareAndSwapPointer(c, nil, p) {
			p = atomic.LoadPointer(c)
		}
	}
	return (*unsafe.Pointer)(unsafe.Add(p, uintptr(r)*unsafe.Sizeof(p)))
}
