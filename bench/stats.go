package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the p-th quantile (0 < p <= 1) of ds by the
// nearest-rank method: the smallest sample with at least p of the samples at
// or below it.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}
