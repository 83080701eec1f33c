package main

import "testing"

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"request timeout 1M live stash":      "request-timeout-1m-live-stash",
		"sleep 100x250µs time":               "sleep-100x250-s-time",
		"churn stash own Sleep":              "churn-stash-own-sleep",
		"  afterfunc chain 1000x10ms  time ": "afterfunc-chain-1000x10ms-time",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
