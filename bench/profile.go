package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"
)

// With -cpuprofile dir, the measured window of each load, request and
// churn run is recorded in a CPU profile of its own, named after the
// workload and the implementation and numbered in the order the runs
// happened, so that one implementation's profiles of a row can be read
// together, apart from the other's:
//
//	go run ./bench -only request -cpuprofile /tmp/p
//	go tool pprof -top /tmp/p/request-timeout-1m-live-stash-*.pprof
//
// Profiling costs both implementations alike, but it costs: the figures of
// a profiled run are not the ones to quote.

// cpuProfileDir is -cpuprofile's directory, or "" for no profiles.
var cpuProfileDir string

// profiles numbers the profiles written.
var profiles atomic.Int64

// window sleeps for d, the measured window of the run what (a workload and
// an implementation), and records its CPU profile if asked to.
func window(d time.Duration, what string) {
	if cpuProfileDir == "" {
		time.Sleep(d)
		return
	}
	name := filepath.Join(cpuProfileDir, fmt.Sprintf("%s-%02d.pprof", slug(what), profiles.Add(1)))
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: -cpuprofile:", err)
		time.Sleep(d)
		return
	}
	time.Sleep(d)
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "bench: -cpuprofile:", err)
	}
}

// slug turns a run's name into a file name: lower case, with a dash for
// each run of other characters than letters and digits.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
