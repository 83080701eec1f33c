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

func BenchmarkCounterAddParallel(b *testing.B) {
	c := NewCounter()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Add(1)
		}
	})
}
