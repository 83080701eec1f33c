package main

import (
	"math"
	"time"
)

// unit says how a row's values print. Every metric in the table is "lower is
// better", so the ratio is time/stash and > 1 means stash is better.
type unit int

const (
	unitNs    unit = iota // nanoseconds (per op, or a duration)
	unitBytes             // bytes
	unitCount             // a plain count (allocs/op)
)

// row is one line of the table.
type row struct {
	workload string
	metric   string
	unit     unit
	time     float64 // NaN when the measurement failed
	stash    float64
	note     string
}

// point is one measurement for the ns/op against live timers plot.
type point struct {
	live int
	ns   float64
}

// results collects what the workloads measured: the table rows and the raw
// data behind the plots.
type results struct {
	rows []row
	// nsVsLive[workload][impl] is ns/op at each live-timer count.
	nsVsLive map[string]map[string][]point
	// lateness[d][impl] is every lateness sample taken for duration d.
	lateness map[time.Duration]map[string][]time.Duration
	// latenessOrder lists the durations of lateness in the order measured.
	latenessOrder []time.Duration
}

func newResults() *results {
	return &results{
		nsVsLive: map[string]map[string][]point{},
		lateness: map[time.Duration]map[string][]time.Duration{},
	}
}

func (r *results) add(rw row) { r.rows = append(r.rows, rw) }

func (r *results) addPoint(workload, impl string, p point) {
	m := r.nsVsLive[workload]
	if m == nil {
		m = map[string][]point{}
		r.nsVsLive[workload] = m
	}
	m[impl] = append(m[impl], p)
}

var nan = math.NaN()
