package main

import (
	"fmt"
	"io"
	"strings"
)

// contextLines is how many unchanged lines a hunk shows around a change.
const contextLines = 3

// unifiedDiff writes to w a unified diff (diff -u) from old to new, the
// file named name before and after the swap. The swap rewrites lines and
// never adds or removes one, so line i of old pairs with line i of new;
// should the counts differ, the whole file is one hunk.
func unifiedDiff(w io.Writer, name string, old, new []byte) error {
	a, b := splitLines(string(old)), splitLines(string(new))
	if len(a) != len(b) {
		return writeHunks(w, name, a, b, []hunk{{0, len(a), 0, len(b)}})
	}
	var hunks []hunk
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		lo, hi := max(i-contextLines, 0), min(i+1+contextLines, len(a))
		if n := len(hunks); n > 0 && lo <= hunks[n-1].aEnd {
			hunks[n-1].aEnd, hunks[n-1].bEnd = hi, hi // overlaps the last: extend it
			continue
		}
		hunks = append(hunks, hunk{lo, hi, lo, hi})
	}
	if len(hunks) == 0 {
		return nil
	}
	return writeHunks(w, name, a, b, hunks)
}

// A hunk is a range of lines of each side, [aStart, aEnd) and [bStart, bEnd).
type hunk struct{ aStart, aEnd, bStart, bEnd int }

func writeHunks(w io.Writer, name string, a, b []string, hunks []hunk) error {
	var s strings.Builder
	fmt.Fprintf(&s, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks {
		fmt.Fprintf(&s, "@@ -%s +%s @@\n", span(h.aStart, h.aEnd), span(h.bStart, h.bEnd))
		if len(a) != len(b) { // no pairing: all out, all in
			writeLines(&s, "-", a[h.aStart:h.aEnd])
			writeLines(&s, "+", b[h.bStart:h.bEnd])
			continue
		}
		for i := h.aStart; i < h.aEnd; i++ {
			if a[i] == b[i] {
				writeLines(&s, " ", a[i:i+1])
				continue
			}
			writeLines(&s, "-", a[i:i+1])
			writeLines(&s, "+", b[i:i+1])
		}
	}
	_, err := io.WriteString(w, s.String())
	return err
}

// span formats a hunk's range as diff -u does: "start,count", lines from 1,
// and for an empty range the line before it.
func span(start, end int) string {
	if end == start {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, end-start)
}

// writeLines writes each line after prefix; a last line without its newline
// gets diff's marker.
func writeLines(s *strings.Builder, prefix string, lines []string) {
	for _, l := range lines {
		s.WriteString(prefix)
		s.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			s.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
