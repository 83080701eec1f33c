// Command colortrace shows the store's trace hook (Config.Trace in
// internal/stash), the Go form of the C++ seed's colored trace header: with
// the hook nil tracing costs one nil check per step; set, it receives an
// Event for every structural step, which this program prints as one
// ANSI-colored line per event, a color per Op. It makes a few adds (one of
// them beyond the span, so it waits in the overflow area), a peep, a walk
// and a clean, and prints what the store reports.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/stashgo/stash/internal/stash"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "colortrace:", err)
		os.Exit(1)
	}
}

const reset = "\x1b[0m"

// colors gives each Op its ANSI color.
var colors = map[stash.Op]string{
	stash.OpAdd:      "\x1b[32m", // green
	stash.OpLate:     "\x1b[33m", // yellow
	stash.OpOverflow: "\x1b[35m", // magenta
	stash.OpDrain:    "\x1b[95m", // bright magenta
	stash.OpWalk:     "\x1b[36m", // cyan
	stash.OpPeep:     "\x1b[34m", // blue
	stash.OpPending:  "\x1b[31m", // red
	stash.OpClean:    "\x1b[90m", // grey
	stash.OpSalvage:  "\x1b[91m", // bright red
	stash.OpRetry:    "\x1b[93m", // bright yellow
}

// colorLine renders one event as a colored trace line.
func colorLine(e stash.Event) string {
	return fmt.Sprintf("%s%-8s%s key=%d level=%d", colors[e.Op], e.Op, reset, e.Key, e.Level)
}

func run(w io.Writer) error {
	cfg := stash.Config{
		Levels: []stash.Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}},
		Trace:  func(e stash.Event) { fmt.Fprintln(w, colorLine(e)) },
	}
	s, err := stash.New[string](cfg, 0)
	if err != nil {
		return err
	}
	say := func(format string, args ...any) { fmt.Fprintf(w, "# "+format+"\n", args...) }

	say("add 3, 5, 5 and 70 (beyond the span of %d)", s.Span())
	for _, k := range []uint64{3, 5, 5, 70} {
		v := fmt.Sprint("v", k)
		s.Add(k, &v)
	}
	say("peep below 6")
	for range s.Peep(6) {
	}
	say("walk below 10")
	for range s.Walk(10) {
	}
	say("clean")
	say("clean detached %d", s.Clean())
	say("add 2 (late: below FirstValid %d)", s.FirstValid())
	v := "v2"
	s.Add(2, &v)
	say("walk below 71")
	for range s.Walk(71) {
	}
	return nil
}
