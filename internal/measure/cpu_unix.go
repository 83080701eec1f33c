//go:build unix

package measure

import (
	"fmt"
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time the process has used,
// all its threads together (getrusage RUSAGE_SELF).
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("measure: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
