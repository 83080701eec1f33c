package main

import (
	"encoding/json"
	"expvar"
	"fmt"
	"testing"

	"github.com/stashgo/stash/stashtime"
)

// A wheel's Stats as an expvar variable (publish gives it a name): the JSON
// an operator reads. The wheel runs on a manual clock here, so that the
// counts are exact.
func Example() {
	clk := stashtime.NewManualClock(stashtime.Unix(0, 0))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		panic(err)
	}
	defer w.Close()
	v := expvar.Func(func() any { return w.Stats() })

	w.AfterFunc(stashtime.Millisecond, func() {})
	w.NewTimer(stashtime.Hour).Stop()
	w.NewTimer(stashtime.Hour)
	clk.Advance(stashtime.Millisecond)
	w.Sync()

	var s stashtime.Stats
	if err := json.Unmarshal([]byte(v.String()), &s); err != nil {
		panic(err)
	}
	fmt.Printf("live %d, fired %d, stopped %d, overflow %d, passes > 0: %v\n",
		s.Live, s.Fired, s.Stopped, s.Overflow, s.Walks > 0)
	// Output: live 1, fired 1, stopped 1, overflow 0, passes > 0: true
}

// TestPublish: the published variable reads the wheel's Stats as JSON.
func TestPublish(t *testing.T) {
	if expvar.Get("stashtime-test") == nil { // -count 2 runs this again
		publish("stashtime-test", stashtime.Default())
	}
	<-stashtime.After(stashtime.Millisecond)
	var s stashtime.Stats
	if err := json.Unmarshal([]byte(expvar.Get("stashtime-test").String()), &s); err != nil {
		t.Fatal(err)
	}
	if s.Fired == 0 || s.Walks == 0 {
		t.Fatalf("published stats %+v: no firing or pass counted", s)
	}
}
