package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress shows on stderr which workload and which implementation is
// running, with a bar for the steps of the current workload. On a terminal it
// redraws one line; elsewhere (CI logs, tests) it prints a line when a
// workload starts and when it is a quarter, half, ... done.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	nWork    int // workloads in this run
	iWork    int // 1-based index of the current workload
	name     string
	total    int // steps in the current workload
	done     int
	impl     string
	lastDraw time.Time
	lastQtr  int
	start    time.Time // of the run
	wStart   time.Time // of the current workload
}

func newProgress(w io.Writer, nWork int) *progress {
	return &progress{w: w, tty: isTerminal(w), nWork: nWork, start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// workload starts the next workload, which will take total steps.
func (p *progress) workload(name string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.iWork++
	p.name, p.total, p.done, p.impl, p.lastQtr = name, max(total, 1), 0, "", 0
	p.wStart = time.Now()
	if p.tty {
		p.draw(true)
	} else {
		fmt.Fprintf(p.w, "bench: [%d/%d] %s (%d steps)\n", p.iWork, p.nWork, name, p.total)
	}
}

// running says which implementation the next step measures, and what of it.
func (p *progress) running(impl, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.impl = impl
	if what != "" {
		p.impl += " " + what
	}
	if p.tty {
		p.draw(false)
	}
}

// step records one finished step of the current workload.
func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+1, p.total)
	if p.tty {
		p.draw(p.done == p.total)
		return
	}
	if q := 4 * p.done / p.total; q > p.lastQtr && q < 4 {
		p.lastQtr = q
		fmt.Fprintf(p.w, "bench: [%d/%d] %s %d%%\n", p.iWork, p.nWork, p.name, 25*q)
	}
}

// workloadDone reports how long the current workload took.
func (p *progress) workloadDone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.wStart).Round(10 * time.Millisecond)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "bench: [%d/%d] %s done in %v\n", p.iWork, p.nWork, p.name, el)
}

// finish ends the display.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start).Round(100 * time.Millisecond)
	fmt.Fprintf(p.w, "bench: %d workloads done in %v\n", p.nWork, el)
}

func (p *progress) draw(force bool) {
	now := time.Now()
	if !force && now.Sub(p.lastDraw) < 50*time.Millisecond {
		return
	}
	p.lastDraw = now
	const width = 24
	fill := width * p.done / p.total
	bar := strings.Repeat("#", fill) + strings.Repeat(".", width-fill)
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %-16s %-14s [%s] %d/%d",
		p.iWork, p.nWork, p.name, p.impl, bar, p.done, p.total)
}
