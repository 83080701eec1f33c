package stashtime

import (
	"unsafe"
	"weak"
)

// hchan stands for the runtime's channel header, which a chan value points
// to. Only its address is used.
type hchan struct{ _ byte }

// A weakChan refers to a timer's channel without keeping it alive, so that
// an abandoned After, NewTimer, Tick or NewTicker is collected as it is by
// the runtime (Go 1.23). A receiver blocked on the channel keeps it alive,
// and then the wheel still delivers to it.
type weakChan struct {
	p weak.Pointer[hchan]
}

func makeWeakChan(c chan Time) weakChan {
	return weakChan{weak.Make(*(**hchan)(unsafe.Pointer(&c)))}
}

// get returns the channel, or nil once it has been collected.
func (w weakChan) get() chan Time {
	p := w.p.Value()
	if p == nil {
		return nil
	}
	return *(*chan Time)(unsafe.Pointer(&p))
}
