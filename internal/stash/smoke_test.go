package stash

import (
	"math/rand"
	"sort"
	"sync"
	"testing"
)

func TestSmokeOrder(t *testing.T) {
	s, err := New[int](Config{Levels: []Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}}, LeafChunk: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, k := range []int{5, 3, 60, 3, 17, 1, 63, 64, 200} {
		v := k
		s.Add(uint64(k), &v)
		want = append(want, k)
	}
	sort.Ints(want)
	var got []int
	for end := uint64(0); end < 300; end += 7 {
		for k, v := range s.Walk(end) {
			if uint64(*v) != k {
				t.Fatalf("value %d in bucket %d", *v, k)
			}
			if k >= end {
				t.Fatalf("key %d walked with end %d", k, end)
			}
			got = append(got, *v)
		}
		s.Clean()
	}
	if len(got) != len(want) {
		t.Fatalf("got %v want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	t.Log(s.Overflow(), s.FirstValid())
}

func TestSmokeConcurrent(t *testing.T) {
	s, _ := New[uint64](Config{Levels: []Level{{Div: 64, Mod: 16, Chunk: 4}, {Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 8}}}, 0)
	const P, N = 4, 20000
	var wg sync.WaitGroup
	var now, stop = new(uint64), make(chan struct{})
	_ = now
	seen := make(map[*uint64]bool)
	var mu sync.Mutex
	clock := uint64(0)
	var clk sync.Mutex
	read := func() uint64 { clk.Lock(); defer clk.Unlock(); return clock }
	for p := 0; p < P; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(p)))
			for i := 0; i < N; i++ {
				k := read() + uint64(r.Intn(2000))
				v := new(uint64)
				*v = k
				s.Add(k, v)
			}
		}(p)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	count := 0
	go func() {
		defer close(done)
		finish := false
		for {
			select {
			case <-stop:
				finish = true
			default:
			}
			clk.Lock()
			clock += 3
			end := clock
			clk.Unlock()
			if finish {
				end = 1 << 40
			}
			for k, v := range s.Walk(end) {
				if *v < k || *v >= k+1 {
					t.Errorf("value %d in bucket %d", *v, k)
				}
				if k >= end {
					t.Errorf("early: %d >= %d", k, end)
				}
				mu.Lock()
				if seen[v] {
					t.Errorf("twice")
				}
				seen[v] = true
				mu.Unlock()
				count++
			}
			s.Clean()
			if finish {
				for range 3 {
					for _, v := range s.Walk(1 << 40) {
						seen[v] = true
						count++
					}
					s.Clean()
				}
				return
			}
		}
	}()
	<-done
	if count != P*N {
		t.Fatalf("walked %d of %d (overflow %d fv %d)", count, P*N, s.Overflow(), s.FirstValid())
	}
}
