package stashtime

// Sleep pauses the current goroutine for at least the duration d on w. A
// negative or zero duration returns at once.
func (w *Wheel) Sleep(d Duration) {
	if d <= 0 {
		return
	}
	<-w.NewTimer(d).C
}
