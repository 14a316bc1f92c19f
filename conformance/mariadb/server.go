// Package mariadb runs a throwaway MariaDB server (Debian's mariadb-server)
// as an oracle for MySQL semantics: Start initialises a data directory in
// a temporary directory, starts mariadbd on a unix socket there (no
// network, no grant tables), and returns a database/sql handle to it.
// differential_test.go runs generated SQL in MariaDB and in lancecat and
// compares the answers.
//
// It is a module of its own so that the Go MySQL driver it needs
// (github.com/go-sql-driver/mysql) never becomes a dependency of the
// lancecat driver module.
package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ErrNotInstalled: mariadbd or mariadb-install-db is not on PATH (or in
// /usr/sbin, where Debian puts mariadbd).
var ErrNotInstalled = errors.New("mariadb-server is not installed")

// Server is a running mariadbd.
type Server struct {
	dir    string
	socket string
	cmd    *exec.Cmd
	done   chan error
	DB     *sql.DB
}

// lookPath finds a MariaDB program: in $LANCECAT_MARIADB_BIN when set
// (only there), else on PATH or in the sbin/bin directories.
func lookPath(name string) (string, error) {
	if dir := os.Getenv("LANCECAT_MARIADB_BIN"); dir != "" {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		return "", fmt.Errorf("%w: %s not found in LANCECAT_MARIADB_BIN=%s", ErrNotInstalled, name, dir)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s not found", ErrNotInstalled, name)
}

// Start initialises and starts a server whose files live under dir (a
// temporary directory the caller removes after Close). extra are more
// mariadbd options, after (so overriding) the defaults, e.g.
// "--innodb-buffer-pool-size=256M" for larger tables.
func Start(ctx context.Context, dir string, extra ...string) (*Server, error) {
	mariadbd, err := lookPath("mariadbd")
	if err != nil {
		return nil, err
	}
	installDB, err := lookPath("mariadb-install-db")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// A unix socket path is limited to ~107 bytes; t.TempDir paths can be
	// long, so the socket goes to a short directory of its own.
	sockDir, err := os.MkdirTemp("", "mdb")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, socket: filepath.Join(sockDir, "s"), done: make(chan error, 1)}
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"} // mariadbd refuses to run as root without it
	}
	install := exec.CommandContext(ctx, installDB, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}, user...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--socket=" + s.socket,
		"--skip-networking", "--skip-grant-tables", "--pid-file=" + filepath.Join(dir, "pid"),
		"--log-error=" + filepath.Join(dir, "error.log"), "--innodb-buffer-pool-size=32M",
		"--innodb-log-file-size=16M", "--skip-log-bin", "--performance-schema=OFF",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_nopad_bin", "--default-time-zone=+00:00",
		"--max-allowed-packet=64M"}, user...)
	args = append(args, extra...)
	s.cmd = exec.Command(mariadbd, args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "unix", s.socket, "root"
	// Binary, no-pad comparison of strings, as lancecat compares them
	// (byte-wise; 'a' <> 'a ').
	cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'" + SQLMode + "'",
		"collation_connection": "'utf8mb4_nopad_bin'", "collation_database": "'utf8mb4_nopad_bin'"}
	cfg.Collation = "utf8mb4_bin"
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.DB = sql.OpenDB(connector)
	deadline := time.Now().Add(60 * time.Second)
	for {
		err = s.DB.PingContext(ctx)
		if err == nil {
			break
		}
		select {
		case werr := <-s.done:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("mariadbd exited: %v\n%s", werr, tail(string(log), 2000))
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.Close()
			return nil, fmt.Errorf("mariadbd did not answer on %s: %v", s.socket, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s, nil
}

// SQLMode is the session's sql_mode: MariaDB's default without
// STRICT_TRANS_TABLES (lancecat answers a bad value in an expression as
// MySQL's non-strict mode does: NULL or 0 with a warning).
const SQLMode = "ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Close stops the server and waits for it.
func (s *Server) Close() error {
	if s.DB != nil {
		s.DB.Close()
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
	os.RemoveAll(filepath.Dir(s.socket))
	return nil
}

// Required reports whether a missing or failing MariaDB must fail the
// tests instead of skipping them (CI).
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("LANCECAT_REQUIRE_MARIADB") == "1"
}

// errorText trims a server error to its message.
func errorText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message
	}
	return strings.TrimSpace(err.Error())
}
