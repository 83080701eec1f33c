package poller

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The poller's system calls that never block (the timerfd and eventfd are
// nonblocking) are made raw, without the runtime's entry to a system call.
// That entry wakes the runtime's monitor thread (sysmon) if the whole
// process was idle, and the monitor then polls every 20 µs for a
// millisecond or more: about 50 thread wake-ups, which cost a process whose
// timers are all it does more CPU than firing the timer. The runtime makes
// its own such calls raw, for the same reason.

// rawWrite is write(2) on a nonblocking descriptor.
func rawWrite(fd int, b []byte) error {
	_, _, errno := syscall.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return errnoErr(errno)
}

// rawRead is read(2) on a nonblocking descriptor.
func rawRead(fd int, b []byte) error {
	_, _, errno := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return errnoErr(errno)
}

// rawTimerfdSettime is timerfd_settime(2), which never blocks.
func rawTimerfdSettime(fd, flags int, spec *unix.ItimerSpec) error {
	_, _, errno := syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(fd), uintptr(flags), uintptr(unsafe.Pointer(spec)), 0, 0, 0)
	return errnoErr(errno)
}

func errnoErr(errno syscall.Errno) error {
	if errno == 0 {
		return nil
	}
	return errno
}
