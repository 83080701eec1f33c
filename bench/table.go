package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// printTable writes the rows as an aligned table. Every metric is "lower is
// better"; ratio = time/stash, so ratio > 1 means stash is better.
func printTable(w io.Writer, rows []row) error {
	head := []string{"workload", "metric", "time", "stash", "ratio"}
	cells := [][]string{head}
	for _, r := range rows {
		cells = append(cells, []string{r.workload, r.metric,
			formatValue(r.time, r.unit), formatValue(r.stash, r.unit), formatRowRatio(r)})
	}
	width := make([]int, len(head))
	for _, c := range cells {
		for i, s := range c {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	b.WriteString("ratio = time/stash; every metric is lower-is-better, so ratio > 1 means stash is better.\n")
	for n, c := range cells {
		for i, s := range c {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if i < 2 { // text: left-aligned
				b.WriteString(s + pad)
			} else {
				b.WriteString(pad + s)
			}
			if i < len(c)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
		if n == 0 {
			total := len(width)*2 - 2
			for _, x := range width {
				total += x
			}
			b.WriteString(strings.Repeat("-", total) + "\n")
		}
	}
	for _, r := range rows {
		if r.note != "" {
			fmt.Fprintf(&b, "note: %s / %s: %s\n", r.workload, r.metric, r.note)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// formatValue prints v in its unit; "failed" for NaN.
func formatValue(v float64, u unit) string {
	if math.IsNaN(v) {
		return "failed"
	}
	switch u {
	case unitNs:
		return formatNs(v)
	case unitBytes:
		// A heap delta below zero is noise (the collector freed more than
		// the workload kept): it prints as 0 B, not -1 B.
		return fmt.Sprintf("%.0f B", max(math.Round(v), 0)+0) // +0: no "-0"
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// formatNs prints a nanosecond value with a unit that keeps 3-4 significant
// digits: 12.3 ns, 456 µs, 1.23 s.
func formatNs(ns float64) string {
	a := math.Abs(ns)
	switch {
	case a < 1e3:
		return fmt.Sprintf("%.1f ns", ns)
	case a < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	case a < 1e9:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.2f s", ns/1e9)
}

// formatRowRatio is formatRatio of a row, or "=" when both figures print
// the same (both 0 B, say, though one measured -0.2 B of noise).
func formatRowRatio(r row) string {
	if t, s := formatValue(r.time, r.unit), formatValue(r.stash, r.unit); t == s && t != "failed" {
		return "="
	}
	return formatRatio(r.time, r.stash)
}

// formatRatio prints time/stash: "-" when either failed, "=" when both
// are 0, "inf" when only stash is 0. A difference of two measurements
// (churn's "the Resets") can come out negative, within the noise of 0,
// and counts as 0.
func formatRatio(t, s float64) string {
	t, s = max(t, 0), max(s, 0)
	switch {
	case math.IsNaN(t) || math.IsNaN(s):
		return "-"
	case t == 0 && s == 0:
		return "="
	case s == 0:
		return "inf"
	}
	return fmt.Sprintf("%.2fx", t/s)
}
