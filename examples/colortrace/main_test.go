package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stashgo/stash/internal/stash"
)

// want is the program's output, escapes spelled out.
const want = "# add 3, 5, 5 and 70 (beyond the span of 64)\n" +
	"\x1b[32madd     \x1b[0m key=3 level=2\n" +
	"\x1b[32madd     \x1b[0m key=5 level=2\n" +
	"\x1b[32madd     \x1b[0m key=5 level=2\n" +
	"\x1b[35moverflow\x1b[0m key=70 level=-1\n" +
	"# peep below 6\n" +
	"\x1b[34mpeep    \x1b[0m key=3 level=2\n" +
	"\x1b[34mpeep    \x1b[0m key=5 level=2\n" +
	"\x1b[34mpeep    \x1b[0m key=5 level=2\n" +
	"# walk below 10\n" +
	"\x1b[36mwalk    \x1b[0m key=3 level=2\n" +
	"\x1b[36mwalk    \x1b[0m key=5 level=2\n" +
	"\x1b[36mwalk    \x1b[0m key=5 level=2\n" +
	"\x1b[95mdrain   \x1b[0m key=70 level=-1\n" +
	"\x1b[35moverflow\x1b[0m key=70 level=-1\n" +
	"# clean\n" +
	"\x1b[90mclean   \x1b[0m key=0 level=0\n" +
	"\x1b[95mdrain   \x1b[0m key=70 level=-1\n" +
	"\x1b[32madd     \x1b[0m key=70 level=2\n" +
	"# clean detached 1\n" +
	"# add 2 (late: below FirstValid 10)\n" +
	"\x1b[33mlate    \x1b[0m key=2 level=-1\n" +
	"\x1b[35moverflow\x1b[0m key=2 level=-1\n" +
	"# walk below 71\n" +
	"\x1b[95mdrain   \x1b[0m key=2 level=-1\n" +
	"\x1b[35moverflow\x1b[0m key=2 level=-1\n" +
	"\x1b[36mwalk    \x1b[0m key=2 level=-1\n" +
	"\x1b[36mwalk    \x1b[0m key=70 level=2\n"

func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
}

// TestColors checks that each trace line carries its Op's color, that the
// colors are distinct, and that every line is reset at the end of the op
// name.
func TestColors(t *testing.T) {
	used := map[string]stash.Op{}
	for op := stash.OpAdd; op <= stash.OpRetry; op++ {
		c, ok := colors[op]
		if !ok {
			t.Fatalf("no color for %v", op)
		}
		if other, dup := used[c]; dup {
			t.Fatalf("%v and %v share a color", op, other)
		}
		used[c] = op
	}
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		ops++
		name := strings.Fields(line[strings.Index(line, "m")+1:])[0]
		var op stash.Op
		for o := range colors {
			if strings.HasPrefix(name, o.String()) {
				op = o
			}
		}
		if !strings.HasPrefix(line, colors[op]+op.String()) || !strings.Contains(line, reset+" key=") {
			t.Errorf("line %q is not colored for %v", line, op)
		}
	}
	if ops < 10 {
		t.Fatalf("only %d trace lines", ops)
	}
}
