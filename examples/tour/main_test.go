package main

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tour.golden")

// TestTour checks the tour's output against testdata/tour.golden; run with
// -update after an intended change.
func TestTour(t *testing.T) {
	for range 3 { // the output is the same every run
		var buf bytes.Buffer
		if err := run(&buf); err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile("testdata/tour.golden", buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile("testdata/tour.golden")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("output differs from testdata/tour.golden:\n%s", buf.String())
		}
	}
}
