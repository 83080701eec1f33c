// Package measure holds what the tests, benchmarks and the bench command
// measure and label with, so that each is written once: the process's CPU
// time (ProcessCPU), the count labels of benchmark names (Count) and the
// median of repeated measurements (Median).
package measure

import "fmt"

// Count formats a count as in benchmark names and tables: 0, 10k, 1M. A
// count that is not a whole number of thousands is written in full.
func Count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
