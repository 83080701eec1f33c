// Command expvarstats publishes the counters of stashtime's process-wide
// wheel (Wheel.Stats) through package expvar, which is how an operator sees
// that the wheel keeps up: Live, Fired, Walks (passes), Wakes (the driver's
// sleeps that ended), Overflow, and the lateness
// percentiles with the histogram they come from (Lateness), as JSON at
// /debug/vars.
//
//	go run ./examples/expvarstats                   # print the JSON once
//	go run ./examples/expvarstats -addr localhost:8123  # serve /debug/vars
//
// Publishing is opt-in, one call (see publish); stashtime itself does not
// import expvar, which brings in net/http.
package main

import (
	"expvar"
	"flag"
	"fmt"
	"log"
	"net/http"

	"github.com/stashgo/stash/stashtime"
)

// publish makes w's Stats, read afresh at every request, the expvar
// variable name. Like expvar.Publish, it panics if name is taken.
func publish(name string, w *stashtime.Wheel) {
	expvar.Publish(name, expvar.Func(func() any { return w.Stats() }))
}

func main() {
	addr := flag.String("addr", "", "serve /debug/vars at this address (default: print once and exit)")
	flag.Parse()
	publish("stashtime", stashtime.Default())

	// Some work for the counters to show.
	for range 100 {
		stashtime.AfterFunc(stashtime.Millisecond, func() {})
	}
	stashtime.Sleep(20 * stashtime.Millisecond)

	if *addr == "" {
		fmt.Println(expvar.Get("stashtime").String())
		return
	}
	log.Printf("serving http://%s/debug/vars", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil)) // expvar registers /debug/vars on the default mux
}
