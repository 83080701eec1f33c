package stashtime

// Helpers shared by package stashtime's own tests. (The external tests'
// are in conformance_helpers_test.go and bench_helpers_test.go; the
// engine's tests are in internal/wheel.)

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newManualWheel starts a wheel on a manual clock set to the Unix epoch,
// with the given MaxBatch (0 for the default), and closes it when the test
// ends.
func newManualWheel(t testing.TB, maxBatch int) (*Wheel, *ManualClock) {
	t.Helper()
	return newManualWheelOpts(t, Options{MaxBatch: maxBatch})
}

// newManualWheelOpts is newManualWheel with other options.
func newManualWheelOpts(t testing.TB, opts Options) (*Wheel, *ManualClock) {
	t.Helper()
	clk := NewManualClock(time.Unix(0, 0))
	opts.Clock = clk
	w, err := NewWheel(opts)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w, clk
}
