package stashtime

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestSmokeReal(t *testing.T) {
	start := time.Now()
	tm := NewTimer(2 * time.Millisecond)
	v := <-tm.C
	if el := time.Since(start); el < 2*time.Millisecond {
		t.Fatalf("early %v", el)
	}
	t.Log("value lag", time.Since(v))
	var n atomic.Int32
	done := make(chan struct{})
	for i := 0; i < 1000; i++ {
		AfterFunc(time.Duration(i%50)*100*time.Microsecond, func() {
			if n.Add(1) == 1000 {
				close(done)
			}
		})
	}
	<-done
	tk := NewTicker(time.Millisecond)
	for i := 0; i < 5; i++ {
		<-tk.C
	}
	tk.Stop()
	Sleep(time.Millisecond)
	t.Logf("%+v", Default().Stats())
}

func TestSmokeManual(t *testing.T) {
	clk := NewManualClock(time.Unix(0, 0))
	w, err := NewWheel(Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tm := w.NewTimer(5 * time.Second)
	clk.Advance(4 * time.Second)
	w.Sync()
	select {
	case <-tm.C:
		t.Fatal("early")
	default:
	}
	clk.Advance(time.Second)
	w.Sync()
	select {
	case v := <-tm.C:
		if !v.Equal(time.Unix(5, 0)) {
			t.Fatal(v)
		}
	default:
		t.Fatal("not fired")
	}
	// far: 3 years
	tm.Reset(3 * 365 * 24 * time.Hour)
	clk.Advance(3*365*24*time.Hour - 1)
	w.Sync()
	select {
	case <-tm.C:
		t.Fatal("early far")
	default:
	}
	clk.Advance(1)
	w.Sync()
	select {
	case <-tm.C:
	default:
		t.Fatalf("far not fired %+v", w.Stats())
	}
}
