//go:build !linux

package poller

func osSleepers() []sleeper { return nil }
