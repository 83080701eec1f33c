package stashtime

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/stashgo/stash/internal/clock"
)

// Misuse that would otherwise leave timers silently unfired, or crash the
// process far from the mistake, is refused where it is made: NewWheel
// returns an error for options no wheel can run on, Close refuses the
// process-wide wheel, and starting a timer on a closed wheel or from inside
// a testing/synctest bubble panics, as a send on a closed channel does.

// ErrCloseDefault is returned by Close on the process-wide wheel (Default),
// which the package-level functions share: it cannot be closed, and keeps
// running.
var ErrCloseDefault = errors.New("stashtime: the process-wide wheel cannot be closed")

// Limits of a store geometry (see Level).
const (
	maxLevels  = 16      // levels in Options.Levels
	maxMod     = 1 << 16 // slots of a level
	chunkSlots = 16      // slots of a level allocated at a time, by default
)

// storeLevels returns the store geometry that Options.Levels asks for:
// DefaultLevels for nil, or else a copy of levels with each zero Chunk
// filled in. It returns an error, naming only what Level documents, for
// levels that do not fit together as Level and Options.Levels require.
func storeLevels(levels []Level) ([]Level, error) {
	if levels == nil {
		return DefaultLevels(), nil
	}
	if len(levels) == 0 {
		return nil, errors.New("stashtime: Options.Levels is empty: nil means DefaultLevels")
	}
	if len(levels) > maxLevels {
		return nil, fmt.Errorf("stashtime: Options.Levels has %d levels, more than %d", len(levels), maxLevels)
	}
	out := make([]Level, len(levels))
	for i, l := range levels {
		switch {
		case l.Div == 0:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Div is zero", i)
		case l.Mod == 0:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Mod is zero", i)
		case l.Mod > maxMod:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Mod is %d, more than %d", i, l.Mod, maxMod)
		case l.Chunk < 0:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Chunk is negative (%d)", i, l.Chunk)
		case l.Div > math.MaxUint64/l.Mod:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Div*Mod (%d*%d) overflows a uint64", i, l.Div, l.Mod)
		case i > 0 && l.Div*l.Mod != levels[i-1].Div:
			return nil, fmt.Errorf("stashtime: Options.Levels[%d]: Div*Mod is %d, want Options.Levels[%d].Div, %d",
				i, l.Div*l.Mod, i-1, levels[i-1].Div)
		}
		if l.Chunk == 0 {
			l.Chunk = int(min(l.Mod, chunkSlots))
		}
		out[i] = l
	}
	if n := len(levels); levels[n-1].Div > math.MaxInt64 {
		return nil, fmt.Errorf("stashtime: Options.Levels[%d]: bucket width (Div) %d ns does not fit in an int64", n-1, levels[n-1].Div)
	}
	return out, nil
}

// checkOptions returns an error for a clock that no wheel can run on: a
// nil pointer for a Clock, or a Clock that reads negative.
func checkOptions(c Clock) error {
	if v := reflect.ValueOf(c); v.Kind() == reflect.Pointer && v.IsNil() {
		if _, ok := c.(*ManualClock); ok {
			return errors.New("stashtime: Options.Clock is a nil *ManualClock")
		}
		return fmt.Errorf("stashtime: Options.Clock is a nil %T", c)
	}
	if now := c.Now(); now < 0 {
		return fmt.Errorf("stashtime: Options.Clock reads %d: a Clock must never read negative", now)
	}
	return nil
}

// begin returns the clock reading to start a timer from, for the Wheel
// method op. It panics if w is closed (the timer would never fire), or if
// the caller is inside a testing/synctest bubble and w runs on a clock of
// its own: the timer's channel would belong to the bubble, and the
// driver's send on it, from outside, would be a fatal error. (A Wheel on
// the system clock hands its work to package time there; see bubble.go.)
func (w *Wheel) begin(op string) int64 {
	w.checkOpen(op)
	if testBinary() {
		now, ok := clock.TimeNow()
		if !ok {
			panic("stashtime: " + op + " on a Wheel with a Clock of its own inside a testing/synctest bubble (its driver runs outside the bubble, on that clock; a Wheel on the system clock hands off to package time there)")
		}
		if w.eng.System() {
			return now
		}
	}
	return w.eng.Now()
}

// checkOpen panics if w is closed: op would arm a timer that never fires.
func (w *Wheel) checkOpen(op string) { w.eng.CheckOpen(op) }
