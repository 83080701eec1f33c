package stashtime

import (
	"testing"
	"unsafe"
)

// TestPadding checks that the per-P structures padded to a pair of cache
// lines (cores fetch lines in adjacent pairs) still fill exactly one pair:
// a field added without shrinking the pad would make neighbours share a
// line again, and the pads are counted by hand.
func TestPadding(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the pads are counted for 64-bit platforms")
	}
	const pair = 128
	for _, c := range []struct {
		name string
		size uintptr
	}{
		{"counterCell", unsafe.Sizeof(counterCell{})},
		{"intakeShard", unsafe.Sizeof(intakeShard{})},
	} {
		if c.size != pair {
			t.Errorf("%s is %d bytes, want %d: adjust its pad", c.name, c.size, pair)
		}
	}
	// The Wheel's producer-read fields, the driver's hot line and the
	// rest are kept apart by pads of a whole pair.
	var w Wheel
	if d := unsafe.Offsetof(w.sleepUntil) - unsafe.Offsetof(w.holes) - unsafe.Sizeof(w.holes); d < pair {
		t.Errorf("sleepUntil lies %d bytes after the producers' fields, want at least %d", d, pair)
	}
	if d := unsafe.Offsetof(w.fired) - (unsafe.Offsetof(w.helpAt) + unsafe.Sizeof(w.helpAt)); d < pair {
		t.Errorf("the driver's counters lie %d bytes after its hot line, want at least %d", d, pair)
	}
}
