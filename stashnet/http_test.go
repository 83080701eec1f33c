package stashnet

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveHTTP serves srv on a loopback listener, wrapped for impl=stash and
// (with cfg) under TLS, and returns its address; the server shuts down
// when the test ends.
func serveHTTP(t *testing.T, impl string, srv *http.Server, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var l net.Listener = ln
	if impl == "stash" {
		l = WrapListener(l)
	}
	if cfg != nil {
		l = tls.NewListener(l, cfg)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(l)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), slack)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	})
	return ln.Addr().String()
}

func hello(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }

// TestHTTPReadHeaderTimeout has a client send its request header a byte at
// a time: the server must cut it at ReadHeaderTimeout, never before.
func TestHTTPReadHeaderTimeout(t *testing.T) {
	const rht = 200 * time.Millisecond
	for _, impl := range benchImpls {
		t.Run("impl="+impl, func(t *testing.T) {
			t.Parallel()
			addr := serveHTTP(t, impl, &http.Server{Handler: http.HandlerFunc(hello),
				ReadHeaderTimeout: rht, ReadTimeout: time.Hour, WriteTimeout: time.Hour, IdleTimeout: time.Hour}, nil)
			start := time.Now()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cut := make(chan time.Time, 1)
			go func() {
				io.Copy(io.Discard, c) // until the server hangs up
				cut <- time.Now()
			}()
			header := "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("s", 1000)
			var at time.Time
		send:
			for i := range len(header) {
				select {
				case at = <-cut:
					break send
				case <-time.After(10 * time.Millisecond):
				}
				if _, err := c.Write([]byte{header[i]}); err != nil {
					break
				}
			}
			if at.IsZero() {
				select {
				case at = <-cut:
				case <-time.After(slack):
					t.Fatal("the server never cut the slow header")
				}
			}
			if d := at.Sub(start); d < rht {
				t.Fatalf("cut after %v, before ReadHeaderTimeout %v", d, rht)
			} else {
				t.Logf("cut after %v (ReadHeaderTimeout %v)", d, rht)
			}
		})
	}
}

// TestHTTPIdleTimeout checks that a keep-alive connection serves several
// requests and is then closed at IdleTimeout, never before.
func TestHTTPIdleTimeout(t *testing.T) {
	const it = 200 * time.Millisecond
	for _, impl := range benchImpls {
		t.Run("impl="+impl, func(t *testing.T) {
			t.Parallel()
			addr := serveHTTP(t, impl, &http.Server{Handler: http.HandlerFunc(hello),
				ReadHeaderTimeout: time.Hour, ReadTimeout: time.Hour, WriteTimeout: time.Hour, IdleTimeout: it}, nil)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			var sent time.Time
			for i := range 3 {
				prev := sent
				sent = time.Now()
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(br, nil)
				if err != nil && i > 0 && time.Since(prev) >= it {
					// The test stalled for IdleTimeout between requests
					// (a loaded machine): the server may close.
					t.Logf("closed while the test stalled %v between requests: %v", time.Since(prev), err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != "hello" {
					t.Fatalf("body %q", body)
				}
				time.Sleep(it / 4)
			}
			c.SetReadDeadline(time.Now().Add(slack))
			if _, err := br.ReadByte(); err != io.EOF {
				t.Fatalf("read after idle: %v, want EOF", err)
			}
			if d := time.Since(sent); d < it {
				t.Fatalf("closed %v after the last request, before IdleTimeout %v", d, it)
			}
		})
	}
}

// TestHTTPWriteTimeout checks that a handler slower than WriteTimeout gets
// its response cut.
func TestHTTPWriteTimeout(t *testing.T) {
	for _, impl := range benchImpls {
		t.Run("impl="+impl, func(t *testing.T) {
			t.Parallel()
			addr := serveHTTP(t, impl, &http.Server{
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(300 * time.Millisecond)
					io.WriteString(w, "late")
				}),
				WriteTimeout: 100 * time.Millisecond}, nil)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr, Timeout: slack}).Get("http://" + addr)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				t.Fatalf("got %q past WriteTimeout", body)
			}
		})
	}
}

// TestTLS serves HTTP over TLS on a wrapped listener, and checks a read
// deadline under a tls.Server on a wrapped connection.
func TestTLS(t *testing.T) {
	cert := selfSigned(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	clientCfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}

	addr := serveHTTP(t, "stash", &http.Server{Handler: http.HandlerFunc(hello),
		ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, IdleTimeout: time.Second}, cfg)
	tr := &http.Transport{TLSClientConfig: clientCfg}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: slack}
	for range 3 {
		resp, err := cl.Get("https://" + addr)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello" {
			t.Fatalf("body %q", body)
		}
	}

	c, peer := tcpPair(t)
	srv := tls.Server(WrapConn(c), cfg)
	defer srv.Close()
	cli := tls.Client(peer, clientCfg)
	defer cli.Close()
	go func() {
		if cli.Handshake() == nil {
			io.WriteString(cli, "x")
		}
	}()
	srv.SetReadDeadline(time.Now().Add(slack))
	readOne(t, srv, 'x')
	dl := time.Now().Add(50 * time.Millisecond)
	srv.SetReadDeadline(dl)
	blockedReadFails(t, srv, dl)
}

// selfSigned returns a throwaway certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "stashnet test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}
