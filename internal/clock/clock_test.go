package clock

import (
	"sync"
	"testing"
	"time"
)

func TestSystemMonotonic(t *testing.T) {
	prev := System.Now()
	for i := 0; i < 10000; i++ {
		now := System.Now()
		if now < prev {
			t.Fatalf("System.Now went backwards: %d after %d", now, prev)
		}
		prev = now
	}
	if !IsSystem(System) {
		t.Fatal("IsSystem(System) = false")
	}
	if IsSystem(NewManual(0)) {
		t.Fatal("IsSystem(Manual) = true")
	}
}

func TestSystemAgreesWithTime(t *testing.T) {
	// Elapsed time measured by Mono and by time.Since agree.
	start, m0 := time.Now(), Mono()
	time.Sleep(20 * time.Millisecond)
	m1, el := Mono(), time.Since(start)
	if d := time.Duration(m1-m0) - el; d < -time.Millisecond || d > time.Millisecond {
		t.Fatalf("Mono elapsed %v, time.Since %v", time.Duration(m1-m0), el)
	}
}

func TestSystemTime(t *testing.T) {
	now := Mono()
	got := System.Time(now + int64(time.Second))
	want := time.Now().Add(time.Second)
	if d := got.Sub(want); d < -10*time.Millisecond || d > 10*time.Millisecond {
		t.Fatalf("System.Time(now+1s) = %v, want about %v", got, want)
	}
}

func TestManualUntil(t *testing.T) {
	m := NewManual(100)
	ch, cancel := m.Until(100)
	defer cancel()
	select {
	case <-ch:
	default:
		t.Fatal("Until(now) not closed at once")
	}

	ch1, cancel1 := m.Until(150)
	defer cancel1()
	ch2, cancel2 := m.Until(300)
	if n := m.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d, want 2", n)
	}
	m.Advance(49)
	select {
	case <-ch1:
		t.Fatal("released at 149, deadline 150")
	default:
	}
	m.Advance(1)
	select {
	case <-ch1:
	default:
		t.Fatal("not released at 150")
	}
	if n := m.Waiters(); n != 1 {
		t.Fatalf("Waiters = %d, want 1", n)
	}
	cancel2()
	if n := m.Waiters(); n != 0 {
		t.Fatalf("Waiters after cancel = %d, want 0", n)
	}
	select {
	case <-ch2:
		t.Fatal("cancelled waiter released")
	default:
	}
	m.Set(10) // backwards: ignored
	m.Advance(-5)
	if got := m.Now(); got != 150 {
		t.Fatalf("Now = %d, want 150", got)
	}
	if got := m.Time(150); !got.Equal(m.Epoch.Add(150)) {
		t.Fatalf("Time(150) = %v", got)
	}
}

func TestManualConcurrent(t *testing.T) {
	m := NewManual(0)
	var wg sync.WaitGroup
	for i := 1; i <= 50; i++ {
		wg.Add(1)
		go func(d int64) {
			defer wg.Done()
			ch, cancel := m.Until(d)
			defer cancel()
			<-ch
			if now := m.Now(); now < d {
				t.Errorf("released at %d before deadline %d", now, d)
			}
		}(int64(i))
	}
	for m.Waiters() > 0 || m.Now() < 50 {
		m.Advance(1)
		time.Sleep(100 * time.Microsecond)
	}
	wg.Wait()
}

// TestFromTimeNeverEarly: a time.Time's monotonic reading converts to no
// less than a reading taken before it, so a deadline computed from it is
// never early; and to no more than one taken after it, plus the base pair's
// gap (far below a millisecond).
func TestFromTimeNeverEarly(t *testing.T) {
	for i := range 10000 {
		m0 := Mono()
		r := FromTime(time.Now())
		m1 := Mono()
		if r < m0 || r > m1+int64(time.Millisecond) {
			t.Fatalf("#%d: FromTime(time.Now()) = %d, outside [%d, %d+1ms]", i, r, m0, m1)
		}
	}
}

// TestTimeNeverEarly: a reading converts to a time.Time whose monotonic
// reading is no earlier than the reading itself.
func TestTimeNeverEarly(t *testing.T) {
	for i := range 10000 {
		t0 := time.Now()
		if got := System.Time(Mono()); got.Before(t0) {
			t.Fatalf("#%d: System.Time of a reading taken after %v is %v, before it", i, t0, got)
		}
	}
}
