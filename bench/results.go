package main

import (
	"math"
	"time"

	"github.com/stashgo/stash/internal/measure"
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
	time     float64 // the median of the rounds; NaN when every one failed
	stash    float64
	// ratios are time/stash of each round, both sides measured one
	// after the other (see pair): their spread is the row's noise.
	ratios []float64
	note   string
}

// newRow returns the row of per-round figures ts and ss: ts[i] and ss[i]
// were measured in round i, one after the other. A round in which either
// side failed (NaN) has no ratio.
func newRow(workload, metric string, u unit, ts, ss []float64) row {
	rw := row{workload: workload, metric: metric, unit: u,
		time: measure.Median(ts), stash: measure.Median(ss)}
	for i := range min(len(ts), len(ss)) {
		if r, ok := ratio(ts[i], ss[i]); ok {
			rw.ratios = append(rw.ratios, r)
		}
	}
	return rw
}

// ratio returns t/s, with figures below zero (a difference of two
// measurements within the noise of 0) counted as 0: 1 when both are 0, and
// +Inf when only s is; ok is false when either is NaN.
func ratio(t, s float64) (r float64, ok bool) {
	if math.IsNaN(t) || math.IsNaN(s) {
		return 0, false
	}
	t, s = max(t, 0), max(s, 0)
	switch {
	case t == 0 && s == 0:
		return 1, true
	case s == 0:
		return math.Inf(1), true
	}
	return t / s, true
}

// percentiles returns the p-th quantile of each of samples.
func percentiles(samples [][]time.Duration, p float64) []float64 {
	q := make([]float64, len(samples))
	for i, s := range samples {
		q[i] = nan
		if len(s) > 0 {
			q[i] = float64(percentile(s, p))
		}
	}
	return q
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
