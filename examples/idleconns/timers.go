package main

import (
	"fmt"
	"time"
)

// A timer is what the server needs of *time.Timer and *stashtime.Timer.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// An impl is an idle-deadline implementation under comparison: a timer per
// connection, started with afterFunc and pushed later with Reset on every
// message, or, with a nil afterFunc, stashnet's idle timeout.
type impl struct {
	name      string
	afterFunc func(d time.Duration, f func()) timer
}

// impls lists the implementations in the order they run; the first is the
// baseline of the ratios.
var impls = []impl{
	{"time", func(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }},
	{"stash", nil}, // stashnet.IdleTimeout
}

// selectImpls returns the implementations that name, a -impl value, selects.
func selectImpls(name string) ([]impl, error) {
	if name == "both" {
		return impls, nil
	}
	for _, im := range impls {
		if im.name == name {
			return []impl{im}, nil
		}
	}
	return nil, fmt.Errorf("unknown -impl %q: want time, stash or both", name)
}
