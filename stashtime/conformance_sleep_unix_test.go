//go:build unix

package stashtime_test

import (
	"syscall"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// A signal delivered to the process does not cut a Sleep short.
func TestConformanceSleepSignal(t *testing.T) {
	const d = 30 * stdtime.Millisecond
	start := stdtime.Now()
	go func() {
		for i := 0; i < 5; i++ {
			stdtime.Sleep(3 * stdtime.Millisecond)
			// SIGURG is what the runtime itself uses to preempt; it is
			// harmless to send.
			_ = syscall.Kill(syscall.Getpid(), syscall.SIGURG)
		}
	}()
	stashtime.Sleep(d)
	if el := stdtime.Since(start); el < d {
		t.Fatalf("Sleep(%v) with signals returned after %v", d, el)
	}
}
