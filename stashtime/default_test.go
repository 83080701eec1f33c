package stashtime

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultChildren run SetDefaultOptions in a fresh process, where the
// process-wide wheel has not started yet.
var defaultChildren = &childproc.Set{
	Env:  "STASHTIME_DEFAULT_CHILD",
	Test: "TestDefaultOptionsChild",
}

func init() {
	defaultChildren.Scenarios = map[string]func(){
		"set-then-use": func() {
			t := defaultChildren.T
			err := SetDefaultOptions(Options{Clock: NewManualClock(time.Unix(0, 0))})
			require.ErrorContains(t, err, "stashtime: SetDefaultOptions: Options.Clock must be nil")
			require.ErrorContains(t, SetDefaultOptions(Options{MaxBatch: -1}), "stashtime: negative MaxBatch")
			require.Nil(t, defaultWheel.Load(), "a refused SetDefaultOptions started the wheel")

			require.NoError(t, SetDefaultOptions(Options{Slack: -1, MaxBatch: 7}))
			w := Default()
			assert.Zero(t, w.eng.MaxSlack(), "Slack -1: every timer exact")
			assert.Equal(t, 7, w.eng.MaxBatch())
			<-After(time.Millisecond) // the package-level functions use it
			assert.Equal(t, int64(1), w.Stats().Fired)

			err = SetDefaultOptions(Options{})
			require.ErrorIs(t, err, ErrDefaultStarted)
			assert.Same(t, w, Default(), "a late SetDefaultOptions replaced the wheel")
			fmt.Println("configured")
		},
		"levels": func() {
			t := defaultChildren.T
			err := SetDefaultOptions(Options{Levels: []Level{{Div: 1 << 29, Mod: 512}, {Div: 1 << 20, Mod: 256}}})
			require.EqualError(t, err, "stashtime: Options.Levels[1]: Div*Mod is 268435456, want Options.Levels[0].Div, 536870912")
			require.Nil(t, defaultWheel.Load(), "a refused SetDefaultOptions started the wheel")
			// As Options.Levels's doc writes them: no Chunk.
			require.NoError(t, SetDefaultOptions(Options{Levels: []Level{{Div: 1 << 29, Mod: 512}, {Div: 1 << 20, Mod: 512}}}))
			<-After(time.Millisecond)
			assert.Equal(t, int64(1), Default().Stats().Fired)
			// Refused levels are refused after the start too.
			err = SetDefaultOptions(Options{Levels: []Level{{Div: 1 << 20}}})
			require.EqualError(t, err, "stashtime: Options.Levels[0]: Mod is zero")
			fmt.Println("levels")
		},
		"use-then-set": func() {
			t := defaultChildren.T
			<-After(time.Millisecond)
			err := SetDefaultOptions(Options{Slack: -1})
			require.ErrorIs(t, err, ErrDefaultStarted)
			assert.Equal(t, int64(DefaultSlack), Default().eng.MaxSlack(), "the wheel started with the zero Options")
			fmt.Println("refused")
		},
	}
}

// TestDefaultOptionsChild is a child's body; it is skipped in the parent.
func TestDefaultOptionsChild(t *testing.T) { defaultChildren.Serve(t) }

// TestSetDefaultOptions: SetDefaultOptions configures the process-wide
// wheel before its first use, and fails, naming the package, after it.
func TestSetDefaultOptions(t *testing.T) {
	for scenario, want := range map[string]string{"set-then-use": "configured", "use-then-set": "refused", "levels": "levels"} {
		t.Run(scenario, func(t *testing.T) {
			r := defaultChildren.Run(t, scenario, 20*time.Second)
			require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			assert.Contains(t, r.Stdout, want)
		})
	}
	// In this process, as in any other after a first use.
	Default()
	err := SetDefaultOptions(Options{Slack: -1})
	require.True(t, errors.Is(err, ErrDefaultStarted), "got %v", err)
	assert.Contains(t, err.Error(), "stashtime: ")
}
