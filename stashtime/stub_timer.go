package stashtime

import "time"

// TEMPORARY stub so the module compiles while the wheel is written.

type Timer struct {
	C <-chan Time
	t *time.Timer
}

func NewTimer(d Duration) *Timer {
	t := time.NewTimer(d)
	return &Timer{C: t.C, t: t}
}

func AfterFunc(d Duration, f func()) *Timer { return &Timer{t: time.AfterFunc(d, f)} }

func After(d Duration) <-chan Time { return NewTimer(d).C }

func (t *Timer) Stop() bool            { return t.t.Stop() }
func (t *Timer) Reset(d Duration) bool { return t.t.Reset(d) }

type Ticker struct {
	C <-chan Time
	t *time.Ticker
}

func NewTicker(d Duration) *Ticker {
	t := time.NewTicker(d)
	return &Ticker{C: t.C, t: t}
}

func Tick(d Duration) <-chan Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

func (t *Ticker) Stop()            { t.t.Stop() }
func (t *Ticker) Reset(d Duration) { t.t.Reset(d) }

func Sleep(d Duration) { time.Sleep(d) }

type Time = time.Time
type Duration = time.Duration
