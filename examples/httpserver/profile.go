package main

import (
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the CPU profile and the execution trace o asks for,
// to files named with impl appended, and returns the function that stops
// them.
func startProfiles(o options, impl string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	if o.cpuprof != "" {
		f, err := os.Create(o.cpuprof + "." + impl)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if o.trace != "" {
		f, err := os.Create(o.trace + "." + impl)
		if err != nil {
			stop()
			return func() {}, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			stop()
			return func() {}, err
		}
		stops = append(stops, func() { trace.Stop(); f.Close() })
	}
	return stop, nil
}
