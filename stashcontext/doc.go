// Package stashcontext is a drop-in replacement for package context whose
// deadlines are timers on stash's wheel.
package stashcontext
