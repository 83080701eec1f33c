package stashtime_test

// Rules 1, 2, 9 and 14 of docs/semantics.md: the surface (aliases, C is a
// plain writable field the library never touches), the capacity-one
// channel, the zero Timer and the nil *Timer.

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// Rule 1 (the list itself is kept complete by TestReexportComplete): the
// types are aliases, so values flow between time and stashtime untouched.
var (
	_ stashtime.Time      = stdtime.Time{}
	_ stdtime.Duration    = stashtime.Millisecond
	_ *stashtime.Location = stdtime.UTC
	_ <-chan stdtime.Time = (&stashtime.Timer{}).C
	_ <-chan stdtime.Time = (&stashtime.Ticker{}).C
)

// Rule 2: C is the user's field. Replacing it does not redirect or disturb
// the library, which neither reads, drains nor closes what the user put
// there; AfterFunc timers have a nil C.
func TestConformanceCIsUsers(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tm := m.NewTimer(stdtime.Millisecond)
	orig := tm.C
	mine := make(chan stdtime.Time, 1)
	mine <- epoch
	tm.C = mine
	m.advance(stdtime.Millisecond)
	if !tm.Stop() { // the library's own channel held the value
		t.Fatal("Stop with C replaced = false")
	}
	if len(mine) != 1 {
		t.Fatal("Stop drained the user's channel")
	}
	mustNotRecv(t, orig, "the library's channel after Stop")
	tm.Reset(stdtime.Millisecond)
	m.advance(stdtime.Millisecond)
	mustRecv(t, orig, at(2*stdtime.Millisecond), "the library still sends on its channel")
	if v := <-mine; !v.Equal(epoch) {
		t.Fatal("the user's channel was written")
	}

	tk := m.NewTicker(stdtime.Millisecond)
	tk.C = nil
	m.advance(stdtime.Millisecond)
	tk.Stop()
	tk.Reset(stdtime.Millisecond)
	tk.Stop()

	if f := m.AfterFunc(stdtime.Hour, func() {}); f.C != nil {
		t.Fatal("AfterFunc timer has a C")
	} else {
		f.Stop()
	}

	// C is never closed: not by Stop, not after firing.
	tm = m.NewTimer(stdtime.Millisecond)
	m.advance(stdtime.Millisecond)
	<-tm.C
	tm.Stop()
	select {
	case _, ok := <-tm.C:
		t.Fatalf("receive after Stop: ok=%v", ok)
	default:
	}
}

// Rule 9 (approx): the channel has capacity 1; len(C) is 0 until the timer
// fires.
func TestConformanceChanCapacity(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tm := m.NewTimer(stdtime.Second)
	if cap(tm.C) != 1 || len(tm.C) != 0 {
		t.Fatalf("pending timer: cap %d len %d, want 1 0", cap(tm.C), len(tm.C))
	}
	m.advance(stdtime.Second)
	if len(tm.C) != 1 {
		t.Fatalf("fired timer: len %d, want 1", len(tm.C))
	}
	tk := m.NewTicker(stdtime.Second)
	defer tk.Stop()
	if cap(tk.C) != 1 {
		t.Fatalf("ticker: cap %d, want 1", cap(tk.C))
	}
}

// Rule 14: the zero Timer and a hand-built one panic on Stop and Reset with
// the runtime's strings, as string values; the channel of a hand-built one
// is left alone.
func TestConformanceZeroTimerPanics(t *testing.T) {
	c := make(chan stdtime.Time, 1)
	c <- epoch
	for name, tm := range map[string]*stashtime.Timer{"zero": {}, "hand-built": {C: c}} {
		v := mustPanic(t, name+" Stop", func() { tm.Stop() })
		if s, ok := v.(string); !ok || s != "time: Stop called on uninitialized Timer" {
			t.Errorf("%s Timer.Stop panicked with %#v", name, v)
		}
		for _, d := range []stdtime.Duration{0, -1, stdtime.Second} {
			v = mustPanic(t, name+" Reset", func() { tm.Reset(d) })
			if s, ok := v.(string); !ok || s != "time: Reset called on uninitialized Timer" {
				t.Errorf("%s Timer.Reset(%v) panicked with %#v", name, d, v)
			}
		}
	}
	if len(c) != 1 {
		t.Fatal("a hand-built Timer's channel was drained")
	}
}

// Rule 14: a nil *Timer panics with the ordinary nil dereference (a
// runtime.Error), and leaves nothing locked: timers work afterwards, on the
// same goroutine and on others.
func TestConformanceNilTimerPanics(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	var tm *stashtime.Timer
	for name, f := range map[string]func(){
		"Stop":  func() { tm.Stop() },
		"Reset": func() { tm.Reset(stdtime.Second) },
	} {
		v := mustPanic(t, name, f)
		var re runtime.Error
		err, _ := v.(error)
		if !errors.As(err, &re) || !strings.Contains(re.Error(), "nil pointer dereference") {
			t.Errorf("nil *Timer.%s panicked with %#v, want a runtime nil dereference", name, v)
		}
	}
	var tk *stashtime.Ticker
	for name, f := range map[string]func(){
		"Stop":  func() { tk.Stop() },
		"Reset": func() { tk.Reset(stdtime.Second) },
	} {
		v := mustPanic(t, "Ticker."+name, f)
		if _, ok := v.(runtime.Error); !ok {
			t.Errorf("nil *Ticker.%s panicked with %#v, want a runtime error", name, v)
		}
	}
	// Nothing is held: the wheel and both kinds of timer still work.
	ok := make(chan bool)
	go func() {
		a := m.NewTimer(stdtime.Millisecond)
		ok <- a.Stop() && !a.Stop()
	}()
	if !<-ok {
		t.Fatal("Stop on another goroutine after the panics")
	}
	b := m.NewTimer(stdtime.Millisecond)
	m.advance(stdtime.Millisecond)
	mustRecv(t, b.C, at(stdtime.Millisecond), "timer after the panics")
	d := stashtime.NewTimer(stdtime.Millisecond)
	if !d.Stop() {
		t.Fatal("default wheel timer after the panics")
	}
}
