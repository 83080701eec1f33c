package poller

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The runtime's entry to a system call that is known to block: unlike the
// one every system call makes, it hands the caller's P to another thread
// at once, as the runtime does before its own blocking sleeps. The runtime
// keeps both names for packages outside it (see go.dev/issue/67401).
//
//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

// sleepWithoutP is epoll_wait(epfd, events, n, -1), entered with the
// caller's P handed off. Between entersyscallblock and exitsyscall the
// goroutine must not grow its stack or be instrumented, hence nosplit,
// norace and the raw system call.
//
//go:nosplit
//go:norace
func sleepWithoutP(epfd int, events *unix.EpollEvent, n int) (int, syscall.Errno) {
	entersyscallblock()
	r, _, errno := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(events)), uintptr(n), ^uintptr(0), 0, 0)
	exitsyscall()
	return int(r), errno
}
