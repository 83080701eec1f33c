package stashtime_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// TestManualClockTimes: a ManualClock takes and gives Times. AdvanceTo
// moves it forward to a Time, ignores one not ahead, stops where Advance
// stops for one beyond, and fires a wheel's timers as Advance does.
func TestManualClockTimes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := stashtime.NewManualClock(start)
	require.Equal(t, start, clk.Current())

	clk.Advance(time.Minute)
	require.Equal(t, start.Add(time.Minute), clk.Current())
	clk.AdvanceTo(start.Add(time.Hour))
	require.Equal(t, start.Add(time.Hour), clk.Current())
	require.Equal(t, int64(time.Hour), clk.Now())
	require.Equal(t, clk.Current(), clk.Time(clk.Now()))

	clk.AdvanceTo(start.Add(time.Minute)) // behind: ignored
	require.Equal(t, start.Add(time.Hour), clk.Current())
	clk.AdvanceTo(start.AddDate(-500, 0, 0)) // behind the start by more than MaxInt64 ns
	require.Equal(t, start.Add(time.Hour), clk.Current())

	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	require.NoError(t, err)
	defer w.Close()
	require.Equal(t, clk.Current(), w.Now())
	fired := false
	w.AfterFunc(time.Second, func() { fired = true })
	clk.AdvanceTo(w.Now().Add(time.Second - 1))
	w.Settle()
	require.False(t, fired, "fired a nanosecond early")
	clk.AdvanceTo(w.Now().Add(1))
	w.Settle()
	require.True(t, fired, "not fired at its deadline")

	clk.AdvanceTo(start.AddDate(500, 0, 0)) // beyond where the clock stops
	require.Equal(t, int64(math.MaxInt64-1), clk.Now())
	require.Equal(t, start.Add(math.MaxInt64-1), clk.Current())
}

// A ManualClock speaks Times: Current reads it, AdvanceTo moves it to one.
func ExampleManualClock_AdvanceTo() {
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clk := stashtime.NewManualClock(start)
	clk.Advance(90 * time.Minute)
	fmt.Println(clk.Current().Format(time.Kitchen), clk.Current().Sub(start))
	clk.AdvanceTo(time.Date(2026, 1, 1, 17, 30, 0, 0, time.UTC))
	fmt.Println(clk.Current().Format(time.Kitchen), clk.Current().Sub(start))
	clk.AdvanceTo(start) // the clock never moves back
	fmt.Println(clk.Current().Format(time.Kitchen))
	// Output:
	// 10:30AM 1h30m0s
	// 5:30PM 8h30m0s
	// 5:30PM
}
