package stashtime

// Misuse gets package time's behaviour where time has one, and otherwise a
// clear error or panic that names the package and the mistake, at the call
// (see misuse.go).

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloseDefault: the process-wide wheel refuses Close and keeps firing
// the package-level functions' timers.
func TestCloseDefault(t *testing.T) {
	w := Default()
	for range 2 {
		require.Equal(t, ErrCloseDefault, w.Close(), "Default().Close()")
	}
	require.False(t, w.eng.Closed(), "the process-wide wheel is marked closed")
	for _, fire := range []func() <-chan Time{
		func() <-chan Time { return After(time.Millisecond) },
		func() <-chan Time { return w.After(time.Millisecond) },
	} {
		select {
		case <-fire():
		case <-time.After(10 * time.Second):
			t.Fatal("a timer on the process-wide wheel did not fire after its Close")
		}
	}
}

// TestClosedWheelPanics: every call that would arm a timer on a closed
// wheel panics, naming the call; Stop does not.
func TestClosedWheelPanics(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	tm := w.NewTimer(time.Hour)
	ft := w.AfterFunc(time.Hour, func() {})
	tk := w.NewTicker(time.Hour)
	require.NoError(t, w.Close())
	require.Equal(t, ErrClosed, w.Close(), "second Close")

	for _, c := range []struct {
		op   string
		call func()
	}{
		{"NewTimer", func() { w.NewTimer(time.Second) }},
		{"NewTimer", func() { w.NewTimer(0) }},
		{"After", func() { w.After(time.Second) }},
		{"AfterFunc", func() { w.AfterFunc(time.Second, func() {}) }},
		{"NewTicker", func() { w.NewTicker(time.Second) }},
		{"NewTicker", func() { w.Tick(time.Second) }},
		{"Timer.Reset", func() { tm.Reset(time.Second) }},
		{"Timer.Reset", func() { ft.Reset(2 * time.Hour) }}, // the lock-free path
		{"Ticker.Reset", func() { tk.Reset(time.Second) }},
	} {
		assert.PanicsWithValue(t, "stashtime: "+c.op+" on closed Wheel", c.call, "%s on a closed wheel", c.op)
	}
	// Sleep must neither block for good nor return early.
	got := make(chan any, 1)
	go func() {
		defer func() { got <- recover() }()
		w.Sleep(time.Second)
	}()
	select {
	case r := <-got:
		assert.Equal(t, "stashtime: Sleep on closed Wheel", r, "Sleep on a closed wheel: panic")
	case <-time.After(10 * time.Second):
		t.Fatal("Sleep on a closed wheel blocked")
	}
	assert.NotPanics(t, func() {
		tm.Stop()
		ft.Stop()
		tk.Stop()
		w.Sleep(0) // returns at once, as on an open wheel
	}, "Stop or Sleep(0) on a closed wheel")
}

// negClock reads -1 s.
type negClock struct{}

func (negClock) Now() int64           { return -int64(time.Second) }
func (negClock) Time(mono int64) Time { return time.Unix(0, mono) }

// TestNewWheelRejects: options no wheel can run on are an error from
// NewWheel, not a panic inside it or a wheel that never fires.
func TestNewWheelRejects(t *testing.T) {
	var nilManual *ManualClock
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"bucket width beyond int64", Options{Clock: NewManualClock(time.Time{}), Levels: []Level{{Div: math.MaxUint64, Mod: 1, Chunk: 1}}}, "does not fit in an int64"},
		{"bucket width 2^63", Options{Clock: NewManualClock(time.Time{}), Levels: []Level{{Div: 1 << 63, Mod: 1, Chunk: 1}}}, "does not fit in an int64"},
		{"typed nil ManualClock", Options{Clock: nilManual}, "nil *ManualClock"},
		{"negative clock", Options{Clock: negClock{}}, "must never read negative"},
		{"negative MaxBatch", Options{MaxBatch: -1}, "negative MaxBatch"},
		{"no levels", Options{Levels: []Level{}}, "Options.Levels is empty"},
		{"zero Div", Options{Levels: []Level{{Mod: 512}}}, "Options.Levels[0]: Div is zero"},
		{"zero Mod", Options{Levels: []Level{{Div: 1 << 29, Mod: 512}, {Div: 1 << 20}}}, "Options.Levels[1]: Mod is zero"},
		{"Mod too big", Options{Levels: []Level{{Div: 1 << 20, Mod: 1 << 17}}}, "Options.Levels[0]: Mod is 131072, more than 65536"},
		{"negative Chunk", Options{Levels: []Level{{Div: 1 << 20, Mod: 512, Chunk: -1}}}, "Options.Levels[0]: Chunk is negative"},
		{"Div*Mod overflows", Options{Levels: []Level{{Div: 1 << 60, Mod: 32}, {Div: 1 << 20, Mod: 1 << 10}}}, "Options.Levels[0]: Div*Mod"},
		{"levels do not fit", Options{Levels: []Level{{Div: 1 << 29, Mod: 512}, {Div: 1 << 20, Mod: 256}}}, "Options.Levels[1]: Div*Mod is 268435456, want Options.Levels[0].Div, 536870912"},
		{"too deep", Options{Levels: make([]Level, 17)}, "more than 16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w *Wheel
			var err error
			require.NotPanics(t, func() { w, err = NewWheel(c.opts) }, "NewWheel")
			if w != nil {
				w.Close()
				t.Fatal("NewWheel returned a wheel")
			}
			require.ErrorContains(t, err, c.want, "NewWheel")
			require.True(t, strings.HasPrefix(err.Error(), "stashtime: "), "NewWheel error %q does not start with \"stashtime: \"", err)
		})
	}
}

// TestLevelsAsDocumented: levels written as Level and Options.Levels
// describe them, Div and Mod alone, make a wheel that fires its timers on
// time, however narrow the buckets or levels; Chunk need not be given.
func TestLevelsAsDocumented(t *testing.T) {
	for name, levels := range map[string][]Level{
		"doc example":  {{Div: 1 << 29, Mod: 512}, {Div: 1 << 20, Mod: 512}},
		"Div 1":        {{Div: 1 << 10, Mod: 1 << 10}, {Div: 1, Mod: 1 << 10}},
		"Mod 1":        {{Div: 1 << 20, Mod: 1}},
		"Mod 1 over 8": {{Div: 1 << 23, Mod: 1}, {Div: 1 << 20, Mod: 8}},
		"max Mod":      {{Div: 1 << 20, Mod: 1 << 16}},
	} {
		t.Run(name, func(t *testing.T) {
			clk := NewManualClock(time.Unix(0, 0))
			w, err := NewWheel(Options{Clock: clk, Levels: levels})
			require.NoError(t, err)
			defer w.Close()
			for _, d := range []time.Duration{time.Millisecond, time.Second, time.Hour} {
				tm := w.NewTimer(d)
				clk.Advance(d - 1)
				w.Sync()
				assert.Empty(t, tm.C, "%v: fired early", d)
				clk.Advance(1)
				w.Sync()
				assert.Len(t, tm.C, 1, "%v: a due timer did not fire", d)
			}
		})
	}
	// The caller's levels stay as they were.
	levels := []Level{{Div: 1 << 20, Mod: 8}}
	w, err := NewWheel(Options{Clock: NewManualClock(time.Unix(0, 0)), Levels: levels})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	assert.Zero(t, levels[0].Chunk, "NewWheel wrote to Options.Levels")
}

// TestWidestBucketFires: the widest bucket NewWheel accepts still fires a
// timer at its deadline.
func TestWidestBucketFires(t *testing.T) {
	for _, div := range []uint64{math.MaxInt64, 1 << 62} {
		clk := NewManualClock(time.Unix(0, 0))
		w, err := NewWheel(Options{Clock: clk, Levels: []Level{{Div: div, Mod: 1, Chunk: 1}}})
		require.NoError(t, err)
		tm := w.NewTimer(time.Second)
		clk.Advance(time.Second - 1)
		w.Sync()
		assert.Empty(t, tm.C, "Div %d: fired early", div)
		clk.Advance(1)
		w.Sync()
		assert.Len(t, tm.C, 1, "Div %d: a due timer did not fire", div)
		require.NoError(t, w.Close())
	}
}

// TestStatsWakes: the driver's ended sleeps are counted, apart from its
// passes.
func TestStatsWakes(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	const n = 20
	for range n {
		// The driver is asleep on the clock: the timer wakes it.
		require.Eventually(t, func() bool { return clk.Waiters() != 0 }, 10*time.Second, 50*time.Microsecond, "the driver did not go to sleep")
		w.AfterFunc(time.Millisecond, func() {})
		clk.Advance(time.Millisecond)
		w.Sync()
	}
	st := w.Stats()
	require.Equal(t, int64(n), st.Fired, "fired")
	require.GreaterOrEqual(t, st.Wakes, int64(n), "wakes")
	require.LessOrEqual(t, st.Wakes, st.Walks, "wakes, against the passes")
}

// panicValue calls f and returns what it panicked with, or nil.
func panicValue(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}
