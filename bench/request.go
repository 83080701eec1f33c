package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// The request-timeout pattern: for every request a caller makes a channel
// timer, hands the request to a server goroutine and blocks in a select on
// the reply or the timer's channel, then stops the timer. The timeout never
// expires, so every timer is made, waited on and stopped. Package time puts
// a channel timer in its heap only while a goroutine is blocked on the
// channel; the blocked select is what puts it there. Other live timers
// (AfterFuncs far ahead, as startLive makes them) fill the heap or wheel
// the request timers join.

// requestTimeout is every request's timeout: far longer than a request
// takes, so that it never expires.
const requestTimeout = time.Second

func requestSteps(c *config) int { return len(c.requestLive) * 2 * c.requestRounds }

// requestRows runs the request loads of 4*GOMAXPROCS callers at each live
// count of cfg.requestLive, alternating the implementations, and adds rows
// of wall and process CPU time per request.
func requestRows(r *runner) {
	callers := 4 * runtime.GOMAXPROCS(0)
	for _, n := range r.cfg.requestLive {
		var wall, cpu [2][]float64
		var errs []string
		// pair's order is time, stash, stash, time, time, ...: a live set
		// is kept for the next measurement when that is of the same
		// implementation, so that the 1M live timers are started R+1
		// times in R rounds rather than 2R. Only one implementation's
		// live set exists at a time, so neither pays for the other's.
		var live []timer
		var liveOf *impl
		for round := range r.cfg.requestRounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, measure.Count(n)+" live")
				if liveOf != im {
					stopAll(live)
					live, liveOf = startLive(im, n, uint64(round)), im
					runtime.GC()
					im.settle()
				}
				res := runRequests(im, callers, r.cfg.requestTime, "request timeout "+measure.Count(n)+" live "+im.name)
				k := implIndex(im)
				if res.timeouts > 0 {
					errs = append(errs, fmt.Sprintf("%s: %d of %d requests timed out", im.name, res.timeouts, res.reqs))
				}
				if res.reqs == 0 {
					errs = append(errs, im.name+": no request completed")
					wall[k], cpu[k] = append(wall[k], nan), append(cpu[k], nan)
				} else {
					n := float64(res.reqs)
					wall[k] = append(wall[k], float64(res.wall)/n)
					cpu[k] = append(cpu[k], float64(res.cpu)/n)
				}
				r.prog.step()
			}
		}
		stopAll(live)
		wl := fmt.Sprintf("request timeout %s live", measure.Count(n))
		rw := newRow(wl, "ns wall/req", unitNs, wall[0], wall[1])
		rw.note = joinErrs(errs)
		r.res.add(rw)
		r.res.add(newRow(wl, "ns CPU/req", unitNs, cpu[0], cpu[1]))
	}
}

// requestResult is what one request load measured over its measured window.
type requestResult struct {
	reqs     int64         // requests completed
	timeouts int64         // of them, those whose timer fired first
	wall     time.Duration // the window
	cpu      time.Duration // process CPU over the window
}

// runRequests runs callers request loops on im, each with a server
// goroutine of its own, for a warm-up and then for dur, and measures the
// second part. what names the run for -cpuprofile (see window).
func runRequests(im *impl, callers int, dur time.Duration, what string) requestResult {
	var (
		stop     atomic.Bool
		reqs     atomic.Int64
		timeouts atomic.Int64
		wg       sync.WaitGroup
	)
	for range callers {
		req := make(chan struct{})
		reply := make(chan struct{})
		wg.Add(2)
		go func() { // the server: one reply per request
			defer wg.Done()
			for range req {
				reply <- struct{}{}
			}
		}()
		go func() { // the caller
			defer wg.Done()
			defer close(req)
			for !stop.Load() {
				t, c := im.newTimer(requestTimeout)
				req <- struct{}{}
				select {
				case <-reply:
				case <-c:
					timeouts.Add(1)
					<-reply // keep in step with the server
				}
				t.Stop()
				reqs.Add(1)
			}
		}()
	}
	time.Sleep(dur / 4) // warm-up
	c0, n0, to0, t0 := processCPU(), reqs.Load(), timeouts.Load(), time.Now()
	window(dur, what)
	c1, n1, to1, el := processCPU(), reqs.Load(), timeouts.Load(), time.Since(t0)
	stop.Store(true)
	wg.Wait()
	return requestResult{reqs: n1 - n0, timeouts: to1 - to0, wall: el, cpu: c1 - c0}
}
