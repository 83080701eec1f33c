package wheel

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestPadding checks that the per-P structures padded to a pair of cache
// lines (cores fetch lines in adjacent pairs) still fill exactly one pair:
// a field added without shrinking the pad would make neighbours share a
// line again, and the pads are counted by hand.
func TestPadding(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the pads are counted for 64-bit platforms")
	}
	const pair uintptr = 128
	for _, c := range []struct {
		name string
		size uintptr
	}{
		{"intakeShard", unsafe.Sizeof(intakeShard{})},
	} {
		assert.Equal(t, pair, c.size, "%s: adjust its pad", c.name)
	}
	// The Wheel's producer-read fields, the driver's hot line and the
	// rest are kept apart by pads of a whole pair.
	var w Wheel
	assert.GreaterOrEqual(t, unsafe.Offsetof(w.sleepUntil)-unsafe.Offsetof(w.holes)-unsafe.Sizeof(w.holes), pair,
		"bytes from the producers' fields to sleepUntil")
	assert.GreaterOrEqual(t, unsafe.Offsetof(w.fired)-(unsafe.Offsetof(w.peepAdds)+unsafe.Sizeof(w.peepAdds)), pair,
		"bytes from the driver's hot line to its counters")
}
