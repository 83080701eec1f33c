//go:build go1.25

package stashtime

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestWheelInBubblePanics: a Wheel made outside a testing/synctest bubble,
// the process-wide one included, refuses at the call to start a timer from
// inside one (the driver's send on a channel made there would kill the
// program), with a panic that says so.
func TestWheelInBubblePanics(t *testing.T) {
	manual, _ := newManualWheel(t, 0)
	def := Default()
	synctest.Test(t, func(t *testing.T) {
		for _, w := range []*Wheel{manual, def} {
			for _, c := range []struct {
				op   string
				call func()
			}{
				{"NewTimer", func() { w.NewTimer(time.Hour) }},
				{"After", func() { w.After(time.Hour) }},
				{"AfterFunc", func() { w.AfterFunc(time.Hour, func() {}) }},
				{"NewTicker", func() { w.NewTicker(time.Hour) }},
				{"NewTicker", func() { w.Tick(time.Hour) }},
				{"Sleep", func() { w.Sleep(time.Hour) }},
			} {
				want := "stashtime: " + c.op + " on a Wheel inside a testing/synctest bubble"
				if r := fmt.Sprint(panicValue(c.call)); !strings.HasPrefix(r, want) {
					t.Errorf("%s inside a bubble (system clock %v): panic %q, want %q...", c.op, w.system, r, want)
				}
			}
		}
		// The package-level functions still work there, on the fake clock.
		start := time.Now()
		Sleep(time.Hour)
		if got := time.Since(start); got != time.Hour {
			t.Errorf("Sleep(time.Hour) in a bubble took %v of its clock", got)
		}
	})
	if manual.Stats().Live != 0 {
		t.Errorf("a refused call armed a timer: %+v", manual.Stats())
	}
}
