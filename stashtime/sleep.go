package stashtime

import "time"

// Sleep pauses the current goroutine for at least the duration d on w. A
// negative or zero duration returns at once.
func (w *Wheel) Sleep(d Duration) {
	if d <= 0 {
		return
	}
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			time.Sleep(d)
			return
		}
	}
	w.sleep(w.begin("Sleep"), d)
}

// sleep blocks until d after now, on a channel timer of w's pool of them: a
// sleeper owns its timer, so once the value has been received the timer is
// as good as new, and arming it again (as a Reset does) costs no
// allocation. d > 0.
func (w *Wheel) sleep(now int64, d Duration) {
	s, _ := w.sleepers.Get().(*chanTimer)
	if s == nil {
		s = w.newChanTimer(now, d)
	} else {
		e := s.t.e
		when := deadline(now, d)
		e.lock()
		e.arm(now, when)
		e.unlock()
		w.notify(e, now, when)
	}
	<-s.c
	w.sleepers.Put(s)
}
