//go:build unix

package measure

import (
	"testing"
	"time"
)

// ProcessCPU grows while a goroutine spins: by 25 ms within 2 s of wall
// time, which even a machine shared with a dozen busy processes gives.
func TestProcessCPUCountsBusyLoop(t *testing.T) {
	c0, err := ProcessCPU()
	if err != nil {
		t.Fatal(err)
	}
	var spinCPU time.Duration
	for start := time.Now(); time.Since(start) < 2*time.Second; {
		for i := 0; i < 1e6; i++ {
			sink++
		}
		c, err := ProcessCPU()
		if err != nil {
			t.Fatal(err)
		}
		if spinCPU = c - c0; spinCPU >= 25*time.Millisecond {
			return
		}
	}
	t.Fatalf("ProcessCPU grew by %v while spinning 2 s, want >= 25 ms", spinCPU)
}

var sink int
