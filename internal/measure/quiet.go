package measure

import (
	"io"
	"os"
	"time"
)

// QuietBest runs f n times with the process's standard output discarded,
// and returns the shortest wall time a run took: a test that bounds the
// real time of an Example on a fake clock takes the best of a few runs, so
// that a loaded machine's scheduling delays do not fail it, while a real
// sleep would show in every run.
func QuietBest(n int, f func()) (time.Duration, error) {
	best := time.Duration(1<<63 - 1)
	for range n {
		took, err := quiet(f)
		if err != nil {
			return 0, err
		}
		best = min(best, took)
	}
	return best, nil
}

// quiet runs f with the standard output discarded and returns how long it
// took.
func quiet(f func()) (time.Duration, error) {
	stdout := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	drained := make(chan struct{})
	go func() {
		io.Copy(io.Discard, r)
		close(drained)
	}()
	os.Stdout = w
	began := time.Now()
	f()
	took := time.Since(began)
	os.Stdout = stdout
	w.Close()
	<-drained
	r.Close()
	return took, nil
}
