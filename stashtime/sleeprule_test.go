package stashtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSleepsOnRuntime checks which package-level sleeps are package time's:
// from a millisecond on, on a default wheel with the default slack or more;
// none on a wheel configured for less.
func TestSleepsOnRuntime(t *testing.T) {
	for _, c := range []struct {
		slack Duration
		d     Duration
		want  bool
	}{
		{0, time.Microsecond, false},
		{0, 999 * time.Microsecond, false},
		{0, time.Millisecond, true},
		{0, time.Hour, true},
		{2 * DefaultSlack, time.Millisecond, true},
		{DefaultSlack / 2, time.Millisecond, false},
		{DefaultSlack / 2, time.Hour, false},
		{-1, time.Hour, false}, // exact timers
	} {
		w, _ := newManualWheelOpts(t, Options{Slack: c.slack})
		assert.Equal(t, c.want, w.sleepsOnRuntime(c.d), "slack %v, Sleep(%v)", c.slack, c.d)
	}
}
