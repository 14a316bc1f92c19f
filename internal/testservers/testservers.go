// Package testservers starts the object-store emulators that lancecat's tests run against, each
// on a free 127.0.0.1 port (never another interface), once per test process:
//
//   - S3: versitygw with a posix backend
//     (`go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`)
//   - Azure Blob: azurite (`npm ci` in conformance/objstores)
//   - GCS: fake-gcs-server (`go install github.com/fsouza/fake-gcs-server@v1.56.1`)
//
// .ci/run installs all three. A test that asks for a server whose program is not installed skips
// loudly, or fails under testenv.Strict (CI=true, LANCECAT_REQUIRE_PEER=1). A program that is
// installed but does not come up always fails the test. A package that uses a server calls
// StopAll from its TestMain; on Linux the servers also die with the test process.
package testservers

import (
	"errors"
	"fmt"
	"go/build"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/lancecat/lancecat/internal/testenv"
)

// Bucket is the bucket (S3, GCS) or container (Azure) every server serves, empty at start.
// Tests separate themselves by key prefix.
const Bucket = "lancecat-test"

// Server is one running emulator.
type Server struct {
	// Name is "s3", "az" or "gs"; URI(prefix) builds a store URI of that scheme.
	Name string
	// Endpoint is the server's base URL on 127.0.0.1.
	Endpoint string
	// DataDir is where a file-backed server keeps objects (S3: <DataDir>/<Bucket>/<key>);
	// empty for servers whose layout is their own.
	DataDir string
	// StorageOptions open a lancecat store on the server.
	StorageOptions map[string]string
	// PeerStorageOptions open the reference peer's object_store on the server (with PeerEnv);
	// they differ from StorageOptions where object_store reaches an emulator differently.
	PeerStorageOptions map[string]string

	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited
	tmp    string
}

// URI returns the store URI of prefix inside Bucket, e.g. s3://lancecat-test/prefix.
func (s *Server) URI(prefix string) string { return s.Name + "://" + Bucket + "/" + prefix }

type starter struct {
	once sync.Once
	srv  *Server
	err  error // installed but failed to start
	miss string
}

var (
	mu       sync.Mutex
	starters = map[string]*starter{}
)

func get(t testing.TB, name string, start func() (*Server, string, error)) *Server {
	t.Helper()
	mu.Lock()
	st := starters[name]
	if st == nil {
		st = &starter{}
		starters[name] = st
	}
	mu.Unlock()
	st.once.Do(func() { st.srv, st.miss, st.err = start() })
	if st.miss != "" {
		testenv.Missing(t, name+" test server", st.miss)
		return nil
	}
	if st.err != nil {
		t.Fatalf("%s test server is installed but did not start: %v", name, st.err)
		return nil
	}
	return st.srv
}

// StopAll ends every server this process started and removes their data.
func StopAll() {
	mu.Lock()
	defer mu.Unlock()
	for _, st := range starters {
		if st.srv != nil {
			st.srv.stop()
		}
	}
}

func (s *Server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.exited
		s.cmd = nil
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// findGoBin looks for a Go-installed program on PATH and in $(go env GOPATH)/bin.
func findGoBin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, gp := range filepath.SplitList(build.Default.GOPATH) {
		p := filepath.Join(gp, "bin", name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// repoRoot is the directory holding go.mod, from this source file's location.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("testservers: cannot locate the source file")
	}
	return filepath.Join(filepath.Dir(file), "..", ".."), nil
}

// launch starts argv (with args built for a fresh port each attempt) and waits until addr
// accepts connections. Output goes to a log file in tmp, shown when the server fails.
func launch(tmp, name string, argv func(addr string, port int) []string) (*exec.Cmd, chan struct{}, string, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freeLoopbackPort()
		if err != nil {
			return nil, nil, "", err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		logf, err := os.Create(filepath.Join(tmp, fmt.Sprintf("%s-%d.log", name, attempt)))
		if err != nil {
			return nil, nil, "", err
		}
		args := argv(addr, port)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = tmp
		cmd.Stdout, cmd.Stderr = logf, logf
		setDeathSignal(cmd)
		if err := cmd.Start(); err != nil {
			logf.Close()
			return nil, nil, "", err
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
		if waitForListener(addr, exited, 30*time.Second) {
			return cmd, exited, addr, nil
		}
		_ = cmd.Process.Kill()
		<-exited
		log, _ := os.ReadFile(logf.Name())
		lastErr = fmt.Errorf("%s on %s did not come up; log:\n%s", name, addr, log)
	}
	return nil, nil, "", lastErr
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitForListener(addr string, exited <-chan struct{}, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func execLookNode() (string, error) { return exec.LookPath("node") }
