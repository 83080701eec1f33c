package stashcontext_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves goroutines behind. The driver of
// stash's process-wide wheel runs for the life of the process.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/stashgo/stash/internal/wheel.(*Wheel).run"),
	)
}
