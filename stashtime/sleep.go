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
	w.eng.SleepFor(w.begin("Sleep"), d)
}
