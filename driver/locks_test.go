package driver_test

import (
	"bufio"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"testing"
	"time"

	_ "github.com/lancecat/lancecat/driver"
)

// lockHolderEnv makes the test binary a lock holder process (see
// TestAdvisoryLockAcrossProcesses): it takes the named lock on the catalog
// the variable names, prints "held" and waits to be killed.
const lockHolderEnv = "LANCECAT_TEST_LOCK_HOLDER"

func init() {
	dsn := os.Getenv(lockHolderEnv)
	if dsn == "" {
		return
	}
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		os.Exit(2)
	}
	var got int64
	if err := db.QueryRow("SELECT GET_LOCK('migrate', 5)").Scan(&got); err != nil || got != 1 {
		os.Exit(3)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

func lockValue(t *testing.T, c *sql.Conn, q string, args ...any) sql.NullInt64 {
	t.Helper()
	var v sql.NullInt64
	if err := c.QueryRowContext(context.Background(), q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// TestAdvisoryLocks: GET_LOCK and friends between two connections of one
// process, with MySQL's results (checked against MariaDB 10.11 by hand: 1
// taken, 0 timed out, RELEASE_LOCK 1 / 0 / NULL, re-entrant counting,
// case-insensitive names, released when the connection closes).
func TestAdvisoryLocks(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("lancecat", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0) // a released *sql.Conn is closed, ending its session
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	check := func(c *sql.Conn, q string, want any) {
		t.Helper()
		got := lockValue(t, c, q)
		switch w := want.(type) {
		case nil:
			if got.Valid {
				t.Fatalf("%s = %d, want NULL", q, got.Int64)
			}
		case int:
			if !got.Valid || got.Int64 != int64(w) {
				t.Fatalf("%s = %v, want %d", q, got, w)
			}
		}
	}
	check(a, "SELECT IS_FREE_LOCK('m')", 1)
	check(a, "SELECT RELEASE_LOCK('m')", nil) // nobody holds it
	check(a, "SELECT GET_LOCK('m', 0)", 1)
	check(a, "SELECT GET_LOCK('M', 0)", 1) // names are case-insensitive; re-entrant
	check(b, "SELECT IS_FREE_LOCK('m')", 0)
	start := time.Now()
	check(b, "SELECT GET_LOCK('m', 0.2)", 0) // times out
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Fatalf("GET_LOCK with timeout 0.2 returned after %v", waited)
	}
	check(b, "SELECT RELEASE_LOCK('m')", 0) // held by another session
	check(a, "SELECT RELEASE_LOCK('m')", 1)
	check(b, "SELECT GET_LOCK('m', 0)", 0) // a still holds it once
	check(a, "SELECT RELEASE_LOCK('m')", 1)
	check(a, "SELECT RELEASE_LOCK('m')", nil)
	check(b, "SELECT GET_LOCK('m', 0)", 1)

	// A waiting GET_LOCK gets the lock when the holder releases it.
	done := make(chan sql.NullInt64)
	go func() { done <- lockValue(t, a, "SELECT GET_LOCK('m', 10)") }()
	time.Sleep(100 * time.Millisecond)
	check(b, "SELECT RELEASE_ALL_LOCKS()", 1)
	if got := <-done; got.Int64 != 1 {
		t.Fatalf("waiting GET_LOCK: %v", got)
	}
	// Closing the connection releases its locks.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	check(b, "SELECT GET_LOCK('m', 1)", 1)
	check(b, "SELECT IS_FREE_LOCK('m')", 0)

	// Bad names are errors, as in MySQL.
	for _, q := range []string{"SELECT GET_LOCK('', 1)", "SELECT GET_LOCK(NULL, 1)", "SELECT GET_LOCK(REPEAT('x', 65), 1)"} {
		var v sql.NullInt64
		if err := b.QueryRowContext(ctx, q).Scan(&v); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}

// TestAdvisoryLockAcrossProcesses: a lock taken by another process blocks
// this one; when that process is killed without releasing it, the lock is
// free once its lease (lock_lease=2s) runs out.
func TestAdvisoryLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	root := t.TempDir()
	dsn := root + "?lock_lease=2s"
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+dsn)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("holder: %q %v", line, err)
	}
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The holder renews its lease: waiting longer than one lease is not enough.
	if got := lockValue(t, c, "SELECT GET_LOCK('migrate', 3)"); got.Int64 != 0 {
		t.Fatalf("GET_LOCK while another process holds it: %v", got)
	}
	if got := lockValue(t, c, "SELECT IS_FREE_LOCK('migrate')"); got.Int64 != 0 {
		t.Fatalf("IS_FREE_LOCK while another process holds it: %v", got)
	}
	// Killed, the holder stops renewing: the lease expires.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	start := time.Now()
	if got := lockValue(t, c, "SELECT GET_LOCK('migrate', 10)"); got.Int64 != 1 {
		t.Fatalf("GET_LOCK after the holder died: %v", got)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("took the dead holder's lock after %v (lease 2s)", waited)
	}
}
