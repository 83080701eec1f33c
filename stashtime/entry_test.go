package stashtime

import (
	"testing"
	"unsafe"
	"weak"
)

// entry.ref holds a weak.Pointer and a func value as one pointer word.
func TestEntryRefLayout(t *testing.T) {
	if got := unsafe.Sizeof(weak.Pointer[hchan]{}); got != unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatalf("weak.Pointer is %d bytes, not one pointer: entry.ref cannot hold it", got)
	}
	if got := unsafe.Sizeof(func() {}); got != unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatalf("a func value is %d bytes, not one pointer", got)
	}
	if got := unsafe.Sizeof(funcTimer{}); got > 64 {
		t.Errorf("an AfterFunc timer takes %d bytes; keep it within the 64-byte size class", got)
	}
}

func TestEntryRefRoundTrip(t *testing.T) {
	var e entry
	called := false
	e.setFn(func() { called = true })
	e.fn()()
	if !called {
		t.Fatal("func did not survive ref")
	}
	c := make(chan Time, 1)
	e.setCh(c)
	if e.ch() != c {
		t.Fatal("channel did not survive ref")
	}
}
