// Command bench runs stash's timers and package time's side by side in one
// process and prints a table of the two, with their ratio, and plots.
//
//	go run ./bench            # about 70 s on 2 cores, more with the first build
//	go run ./bench -quick     # smallest sizes, a few seconds
//	go run ./bench -long      # longer, more precise; 1M timers drained
//	go run ./bench -only lateness,drain -out /tmp/plots
//
// Progress goes to stderr, the table to stdout, PNG plots to -out.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// config is everything a run depends on.
type config struct {
	mode        string
	liveSizes   []int         // live timers under afterfunc-stop, newtimer-stop
	contextLive []int         // live contexts under the context rows, measured contextRounds times
	resetLive   int           // live timers under reset-later
	benchtime   time.Duration // -test.benchtime for testing.Benchmark
	// rounds is how many times each ns/op row measures both sides, one
	// after the other in alternating order: the rows' ratios and their
	// spread are over the rounds. The lateness rows split their samples,
	// taken in turn, into as many rounds, and the comeback rows into as
	// many as give three samples each, at most rounds.
	rounds      int
	memN        int // timers per memory measurement
	memRounds   int
	drainN      int
	drainRounds int
	burstN      int
	burstRounds int
	latencies   []time.Duration
	samples     int // lateness samples per duration and implementation, all rounds
	// comebackSamples is how many first timers after an idle spell to
	// measure per implementation, all rounds (see comeback.go).
	comebackSamples int
	loadTime        time.Duration // measured time of one load run
	loadRounds      int
	httpTime        time.Duration // measured time of one http load (see nethttp.go)
	httpRounds      int
	contextRounds   int
	// requestLive is the live timers under the request rows (see
	// request.go), each measured requestRounds times for requestTime.
	requestLive   []int
	requestTime   time.Duration
	requestRounds int
	// churnN goroutines churn deadlines (see churn.go), each variant
	// measured churnRounds times for churnTime.
	churnN      int
	churnTime   time.Duration
	churnRounds int
	// The busy rows: GOMAXPROCS values, counts of computing goroutines,
	// waits per run, runs per implementation, and whether every kind of
	// wait is measured or only the first two (see busy.go).
	busyProcs, busySpinners []int
	busyN, busyRounds       int
	busyAll                 bool
	only                    []string
	out                     string
	cpuProfile              string        // -cpuprofile's directory, or ""
	soak                    time.Duration // run the soak (see soak.go) for this long per implementation, instead
}

func quickConfig() config {
	return config{
		mode:      "quick",
		liveSizes: []int{0, 1_000, 10_000}, contextLive: []int{0, 10_000}, resetLive: 1_000,
		benchtime: 20 * time.Millisecond, rounds: 1,
		memN: 10_000, memRounds: 1,
		drainN: 10_000, drainRounds: 1,
		burstN: 10_000, burstRounds: 1,
		latencies: []time.Duration{100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond},
		samples:   40, comebackSamples: 3,
		loadTime: 300 * time.Millisecond, loadRounds: 1, httpTime: 300 * time.Millisecond, httpRounds: 1, contextRounds: 1,
		requestLive: []int{1_000, 10_000}, requestTime: 100 * time.Millisecond, requestRounds: 1,
		churnN: 2_000, churnTime: 100 * time.Millisecond, churnRounds: 1,
		busyProcs: []int{1}, busySpinners: []int{4}, busyN: 4, busyRounds: 1,
	}
}

func defaultConfig() config {
	return config{
		mode:      "default",
		liveSizes: []int{0, 10_000, 1_000_000}, contextLive: []int{0, 10_000}, resetLive: 10_000,
		benchtime: 30 * time.Millisecond, rounds: 5,
		memN: 100_000, memRounds: 5,
		drainN: 50_000, drainRounds: 3,
		burstN: 100_000, burstRounds: 3,
		latencies: []time.Duration{100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond},
		samples:   200, comebackSamples: 9,
		loadTime: 300 * time.Millisecond, loadRounds: 3, httpTime: 300 * time.Millisecond, httpRounds: 3, contextRounds: 3,
		requestLive: []int{10_000, 1_000_000}, requestTime: 200 * time.Millisecond, requestRounds: 3,
		churnN: 20_000, churnTime: 400 * time.Millisecond, churnRounds: 3,
		busyProcs: []int{1, 2}, busySpinners: []int{1, 2, 4, 8}, busyN: 8, busyRounds: 2, busyAll: true,
	}
}

func longConfig() config {
	c := defaultConfig()
	c.mode = "long"
	c.contextLive, c.contextRounds = c.liveSizes, 5
	c.benchtime, c.rounds = time.Second, 5
	c.memN, c.drainN = 1_000_000, 1_000_000
	c.memRounds, c.drainRounds, c.burstRounds = 5, 5, 8
	c.samples, c.comebackSamples = 1000, 50
	c.loadTime, c.loadRounds, c.httpTime, c.httpRounds = 4*time.Second, 5, 4*time.Second, 5
	c.requestTime, c.requestRounds = time.Second, 5
	c.churnTime, c.churnRounds = 2*time.Second, 5
	c.busyN, c.busyRounds = 20, 4
	return c
}

// parseFlags turns the command line into a config.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smallest sizes and fewest samples (a few seconds; for tests)")
	long := fs.Bool("long", false, "longer runs and more samples, for more precise figures")
	only := fs.String("only", "", "comma-separated workloads to run, of: "+strings.Join(workloadNames(), ",")+" (a full run leaves out "+strings.Join(optIn, ",")+")")
	out := fs.String("out", "bench/out", "directory for the PNG plots")
	soak := fs.Duration("soak", 0, "instead, run the heap soak (see soak.go) for this long with time, then with stash")
	cpuprofile := fs.String("cpuprofile", "", "directory to write a CPU profile of each load, request and churn run's measured window to (see profile.go)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./bench [-quick|-long] [-only w1,w2] [-out dir] [-cpuprofile dir]\n\n"+
			"Runs stash and time side by side and prints time, stash and time/stash\n"+
			"(> 1: stash better) for each workload.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	var c config
	switch {
	case *quick && *long:
		return config{}, errors.New("-quick and -long exclude each other")
	case *quick:
		c = quickConfig()
	case *long:
		c = longConfig()
	default:
		c = defaultConfig()
	}
	c.out, c.soak, c.cpuProfile = *out, *soak, *cpuprofile
	if *only != "" {
		for _, w := range strings.Split(*only, ",") {
			w = strings.TrimSpace(w)
			if !slices.Contains(workloadNames(), w) {
				return config{}, fmt.Errorf("-only: unknown workload %q (have %s)", w, strings.Join(workloadNames(), ", "))
			}
			c.only = append(c.only, w)
		}
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if cfg.cpuProfile != "" {
		if err := os.MkdirAll(cfg.cpuProfile, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		cpuProfileDir = cfg.cpuProfile
	}
	if cfg.soak > 0 {
		err = runSoak(cfg.soak, os.Stdout, os.Stderr)
	} else {
		err = run(cfg, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run runs the selected workloads, prints the table to stdout and writes the
// plots to cfg.out.
func run(cfg config, stdout, stderr io.Writer) error {
	var sel []workload
	for _, w := range workloads {
		if len(cfg.only) == 0 && cfg.mode != "quick" && slices.Contains(optIn, w.name) {
			continue
		}
		if len(cfg.only) == 0 || slices.Contains(cfg.only, w.name) {
			sel = append(sel, w)
		}
	}
	restore := setBenchtime(cfg.benchtime)
	defer restore()

	res := newResults()
	prog := newProgress(stderr, len(sel))
	r := &runner{cfg: &cfg, res: res, prog: prog}
	for _, w := range sel {
		prog.workload(w.name, w.steps(&cfg))
		w.run(r)
		runtime.GC()
		prog.workloadDone()
	}
	prog.finish()

	fmt.Fprintf(stdout, "stash vs time, %s mode: %s %s/%s, GOMAXPROCS=%d\n",
		cfg.mode, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	if err := printTable(stdout, res.rows); err != nil {
		return err
	}
	files, err := writePlots(cfg.out, res)
	for _, f := range files {
		fmt.Fprintf(stderr, "bench: wrote %s\n", f)
	}
	return err
}

// setBenchtime sets the duration testing.Benchmark aims for and returns a
// function that puts the previous value back.
func setBenchtime(d time.Duration) (restore func()) {
	testing.Init() // registers -test.benchtime; a no-op when already done
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	if err := f.Value.Set(d.String()); err != nil {
		panic(err)
	}
	return func() { _ = f.Value.Set(old) }
}
