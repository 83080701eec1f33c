package stashnet

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sent reports how far c's output has got, for an idle timer to tell a
// connection whose output still moves from one that is stuck: acked counts
// the bytes the peer has acknowledged so far, and pending whether some
// are still unsent or unacknowledged. ok is false where c (or, through
// NetConn, the connection under it) is not a TCP socket.
func sent(c net.Conn) (acked uint64, pending, ok bool) {
	for {
		switch v := c.(type) {
		case syscall.Conn:
			rc, err := v.SyscallConn()
			if err != nil {
				return 0, false, false
			}
			var info *unix.TCPInfo
			cerr := rc.Control(func(fd uintptr) {
				info, err = unix.GetsockoptTCPInfo(int(fd), unix.SOL_TCP, unix.TCP_INFO)
			})
			if cerr != nil || err != nil {
				return 0, false, false
			}
			return info.Bytes_acked, info.Unacked > 0 || info.Notsent_bytes > 0, true
		case interface{ NetConn() net.Conn }: // *tls.Conn
			c = v.NetConn()
		default:
			return 0, false, false
		}
	}
}
