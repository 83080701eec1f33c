package poller

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkEventfdRoundTrip: a write and a read of an eventfd, as a wake-up
// and its drain, through x/sys/unix (the runtime's entry to a system call
// and exit from it) and raw, as the poller makes them.
func BenchmarkEventfdRoundTrip(b *testing.B) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		b.Skip("eventfd:", err)
	}
	defer unix.Close(fd)
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	var buf [8]byte
	b.Run("call=unix", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			unix.Write(fd, one)
			unix.Read(fd, buf[:])
		}
	})
	b.Run("call=raw", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rawWrite(fd, one)
			rawRead(fd, buf[:])
		}
	})
}

// The raw calls report errors as the unix ones do.
func TestRawCallErrors(t *testing.T) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		t.Skip("eventfd:", err)
	}
	var buf [8]byte
	if err := rawRead(fd, buf[:]); err != unix.EAGAIN {
		t.Fatalf("rawRead of an empty eventfd = %v, want EAGAIN", err)
	}
	if err := rawWrite(fd, []byte{1, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatalf("rawWrite = %v", err)
	}
	if err := rawRead(fd, buf[:]); err != nil || buf[0] != 1 {
		t.Fatalf("rawRead = %v, %v; want nil, 1", err, buf[0])
	}
	unix.Close(fd)
	// -1, not the closed fd: another goroutine of the test binary may
	// have opened a descriptor of that number since.
	if err := rawWrite(-1, buf[:]); err != unix.EBADF {
		t.Fatalf("rawWrite(-1) = %v, want EBADF", err)
	}
	spec := unix.ItimerSpec{}
	if err := rawTimerfdSettime(-1, 0, &spec); err != unix.EBADF {
		t.Fatalf("rawTimerfdSettime(-1) = %v, want EBADF", err)
	}
}
