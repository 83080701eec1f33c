package loopback

import (
	"io"
	"testing"
)

// TestPair: what one end writes, the other reads, both ways.
func TestPair(t *testing.T) {
	c, s, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer s.Close()
	for _, dir := range [][2]interface {
		Write([]byte) (int, error)
		Read([]byte) (int, error)
	}{{c, s}, {s, c}} {
		if _, err := dir[0].Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(dir[1], buf); err != nil || string(buf) != "ping" {
			t.Fatalf("read %q, %v; want ping", buf, err)
		}
	}
}
