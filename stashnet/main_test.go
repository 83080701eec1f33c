package stashnet

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them: every
// wrapped connection's timers must stop with it. The wheel's driver runs
// for good once started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/stashgo/stash/internal/wheel.(*Wheel).run"),
	)
}
