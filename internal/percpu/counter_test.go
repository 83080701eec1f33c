package percpu

import (
	"sync"
	"testing"
)

func TestCounterSumsAcrossGoroutines(t *testing.T) {
	c := NewCounter()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				c.Add(1)
			}
		}()
	}
	wg.Wait()
	c.Add(-3)
	if got := c.Load(); got != 8000-3 {
		t.Fatalf("Load = %d, want %d", got, 8000-3)
	}
	if n := len(c.cells); n&(n-1) != 0 {
		t.Fatalf("%d cells, not a power of two", n)
	}
}

// TestCounterAddReturnsTheCell: Add returns the value of the cell it added
// to, which a single goroutine's adds of one step through one by one while
// it stays on one P, and which never exceeds the sum.
func TestCounterAddReturnsTheCell(t *testing.T) {
	c := NewCounter()
	for i := range 1000 {
		v := c.Add(1)
		if v < 1 || v > int64(i+1) {
			t.Fatalf("add #%d returned %d, want 1 to %d", i+1, v, i+1)
		}
	}
	if got := c.Load(); got != 1000 {
		t.Fatalf("Load = %d, want 1000", got)
	}
}

func BenchmarkCounterAddParallel(b *testing.B) {
	c := NewCounter()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1)
		}
	})
}
