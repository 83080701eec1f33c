package stashnet

import "net"

// WrapListener returns l with every connection it accepts wrapped by
// WrapConn with opts. Serving an http.Server on it puts the server's
// ReadTimeout, ReadHeaderTimeout, WriteTimeout and IdleTimeout on
// stashtime's wheel. WrapListener panics if l is nil.
func WrapListener(l net.Listener, opts ...Option) net.Listener {
	if l == nil {
		panic("stashnet: WrapListener of nil net.Listener")
	}
	return &listener{Listener: l, o: buildOptions(opts)}
}

type listener struct {
	net.Listener
	o options
}

// Accept waits for and returns the next connection, wrapped.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return wrap(c, l.o), nil
}
