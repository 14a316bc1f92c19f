package testservers

import (
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Fault is what a FaultProxy does to a request a rule matches.
type Fault int

const (
	// Status503Before answers 503 Service Unavailable without forwarding: the request never
	// reached the store.
	Status503Before Fault = iota
	// ResetAfter forwards the request (the store acts on it) and then drops the connection
	// without an answer: a write that landed with its acknowledgement lost.
	ResetAfter
	// Status412Before answers 412 Precondition Failed without forwarding: a conditional write
	// that lost a race (on Azure the 409 BlobAlreadyExists a losing create gets is answered).
	Status412Before
	// ResetBefore drops the connection without forwarding: a network error.
	ResetBefore
)

// FaultRule selects requests: Method ("" any), a substring of the decoded request path and,
// when QueryContains is set, a substring of the raw query ("comp=blocklist": Azure's Put Block
// List, the commit of a staged upload). Times is how many matching requests it hits (0: every
// one until cleared).
type FaultRule struct {
	Method        string
	PathContains  string
	QueryContains string
	Fault         Fault
	Times         int
}

// FaultProxy is an HTTP reverse proxy on 127.0.0.1 in front of an emulator that injects faults
// at the requests its rules select, so a store's SDK sees what a real network and service do.
type FaultProxy struct {
	srv   *httptest.Server
	mu    sync.Mutex
	rules []*FaultRule
	fired []string
}

// Proxied starts a FaultProxy in front of s and returns it with a copy of s whose Endpoint and
// StorageOptions go through it. retries sets client_max_retries in the copy's options, so a
// fault reaches the caller instead of being retried away.
func (s *Server) Proxied(t testing.TB, retries string) (*Server, *FaultProxy) {
	t.Helper()
	target, err := url.Parse(s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p := &FaultProxy{}
	rp := &httputil.ReverseProxy{
		Director: func(r *http.Request) {
			r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
			// S3 signs the Host header the client used (the proxy's): keep it; fake-gcs-server
			// routes by its own host name.
			if s.Name == "gs" {
				r.Host = target.Host
			}
		},
		ErrorLog: nil,
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rule := p.match(r)
		if rule == nil {
			rp.ServeHTTP(w, r)
			return
		}
		if rule.Fault != ResetAfter {
			// Take the whole request first, as a service does before it answers a small write.
			_, _ = io.Copy(io.Discard, r.Body)
		}
		switch rule.Fault {
		case Status503Before:
			http.Error(w, "injected: service unavailable", http.StatusServiceUnavailable)
		case Status412Before:
			if s.Name == "az" {
				w.Header().Set("x-ms-error-code", "BlobAlreadyExists")
				http.Error(w, "injected: blob already exists", http.StatusConflict)
				return
			}
			http.Error(w, "injected: precondition failed", http.StatusPreconditionFailed)
		case ResetAfter:
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			hijackClose(w)
		case ResetBefore:
			hijackClose(w)
		}
	}))
	t.Cleanup(p.srv.Close)
	c := *s
	c.Endpoint = p.srv.URL + strings.TrimPrefix(s.Endpoint, target.Scheme+"://"+target.Host)
	c.StorageOptions = maps.Clone(s.StorageOptions)
	for k, v := range c.StorageOptions {
		if v == s.Endpoint || strings.HasPrefix(v, s.Endpoint+"/") {
			c.StorageOptions[k] = c.Endpoint + strings.TrimPrefix(v, s.Endpoint)
		}
	}
	c.StorageOptions["client_max_retries"] = retries
	c.PeerStorageOptions = nil
	c.cmd, c.exited, c.tmp = nil, nil, ""
	return &c, p
}

// hijackClose drops the client's connection without a response.
func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // a reset, not an orderly close
			}
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// Set replaces the proxy's rules and clears its record of fired faults.
func (p *FaultProxy) Set(rules ...FaultRule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = p.rules[:0]
	for i := range rules {
		r := rules[i]
		p.rules = append(p.rules, &r)
	}
	p.fired = nil
}

// Fired lists the requests a fault hit, as "METHOD path: fault".
func (p *FaultProxy) Fired() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.fired...)
}

func (p *FaultProxy) match(r *http.Request) *FaultRule {
	p.mu.Lock()
	defer p.mu.Unlock()
	path := r.URL.Path
	if u, err := url.PathUnescape(r.URL.EscapedPath()); err == nil {
		path = u
	}
	for _, rule := range p.rules {
		if rule.Method != "" && rule.Method != r.Method {
			continue
		}
		if !strings.Contains(path, rule.PathContains) && !strings.Contains(r.URL.RawQuery, url.QueryEscape(rule.PathContains)) {
			continue
		}
		if rule.QueryContains != "" && !strings.Contains(r.URL.RawQuery, rule.QueryContains) {
			continue
		}
		if rule.Times < 0 {
			continue
		}
		if rule.Times > 0 {
			rule.Times--
			if rule.Times == 0 {
				rule.Times = -1 // spent
			}
		}
		p.fired = append(p.fired, r.Method+" "+path+": "+faultName[rule.Fault])
		return rule
	}
	return nil
}

var faultName = map[Fault]string{
	Status503Before: "503 before", ResetAfter: "reset after", Status412Before: "412 before", ResetBefore: "reset before",
}
