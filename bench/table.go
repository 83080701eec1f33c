package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/stashgo/stash/internal/measure"
)

// printTable writes the rows as an aligned table. Every metric is "lower is
// better"; ratio = time/stash, so ratio > 1 means stash is better.
func printTable(w io.Writer, rows []row) error {
	head := []string{"workload", "metric", "time", "stash", "ratio", "range"}
	cells := [][]string{head}
	for _, r := range rows {
		cells = append(cells, []string{r.workload, r.metric,
			formatValue(r.time, r.unit), formatValue(r.stash, r.unit), formatRowRatio(r), formatRange(r)})
	}
	width := make([]int, len(head))
	for _, c := range cells {
		for i, s := range c {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	b.WriteString("ratio = time/stash; every metric is lower-is-better, so ratio > 1 means stash is better.\n" +
		"time and stash are the medians of the rounds, each round both sides one after the other, in\n" +
		"alternating order; ratio is the median of the rounds' ratios and range their lowest and highest,\n" +
		"the row's noise: \"parity\" where the range holds 1.0 (no difference the rounds can tell).\n")
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
		trimLine(&b)
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

// trimLine drops the spaces that end b, an empty last cell's padding.
func trimLine(b *strings.Builder) {
	if s := b.String(); strings.HasSuffix(s, " ") {
		t := strings.TrimRight(s, " ")
		b.Reset()
		b.WriteString(t)
	}
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

// formatRowRatio is the median of a row's ratios, "parity" when their
// range holds 1.0, or "=" when both figures of bytes or counts print the
// same (both 0 B, say, though one measured -0.2 B of noise). A row
// without per-round ratios prints the ratio of its figures, or "=" when
// they print the same.
func formatRowRatio(r row) string {
	if t, s := formatValue(r.time, r.unit), formatValue(r.stash, r.unit); t == s && t != "failed" &&
		(r.unit != unitNs || len(r.ratios) == 0) {
		return "="
	}
	if len(r.ratios) == 0 {
		return formatRatio(r.time, r.stash)
	}
	if lo, hi := slices.Min(r.ratios), slices.Max(r.ratios); len(r.ratios) > 1 && lo <= 1 && hi >= 1 {
		return "parity"
	}
	return formatX(measure.Median(r.ratios))
}

// formatRange prints the lowest and highest of a row's ratios, or nothing
// for a row of fewer than two rounds, or one that prints "=".
func formatRange(r row) string {
	if len(r.ratios) < 2 || formatRowRatio(r) == "=" {
		return ""
	}
	lo, hi := formatX(slices.Min(r.ratios)), formatX(slices.Max(r.ratios))
	if lo == hi {
		return lo
	}
	return strings.TrimSuffix(lo, "x") + "-" + hi
}

// formatX prints a ratio: "2.00x", or "inf".
func formatX(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2fx", x)
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
