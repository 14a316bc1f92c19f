package conformance

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/lance/dataset"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/storage"
)

// The multi-process kill -9 test (issue #10): lancecat writer processes run random SQL scripts
// (CREATE SCHEMA, CREATE TABLE, INSERT, upserts (ON DUPLICATE KEY UPDATE), UPDATE, DELETE, OPTIMIZE TABLE,
// DROP TABLE, DROP SCHEMA ... CASCADE)
// against one catalog (a local directory; and a prefix on the S3 server) while reference
// processes create and append there too; every lancecat writer is killed with SIGKILL at a
// random moment. After each round, with every process gone, lancecat and the reference list,
// describe and scan every table; no write a lancecat writer saw committed is lost or duplicated
// (the one statement in flight at the kill may have landed or not, atomically);
// `CALL vacuum_catalog('0s')` leaves no directory the catalog does not own; and the reference
// appends once more to a lancecat table, which lancecat then reads.

const (
	crashWorkerEnv = "LANCECAT_CRASH_WORKER" // "root|namespace|seed|idBase": run as a writer
	crashRoundsEnv = "LANCECAT_CRASH_ROUNDS" // rounds (default 3); the soak sets more
	crashSeedEnv   = "LANCECAT_CRASH_SEED"   // replay a printed seed
	// crashStorageEnv hands crash-writer.mjs the storage options (JSON) of an object-store catalog.
	crashStorageEnv = "LANCECAT_CRASH_STORAGE_OPTIONS"
)

// crashOp is one statement of a lancecat writer, printed as a JSON line before it runs
// (Phase "begin") and again, by Seq alone, after Exec returned (Phase "done").
type crashOp struct {
	Seq   int     `json:"seq"`
	Phase string  `json:"phase"`
	Kind  string  `json:"kind,omitempty"`  // schema, create, insert, update, delete, drop, dropschema
	Table string  `json:"table,omitempty"` // "ns.t"; for schema: the namespace
	IDs   []int64 `json:"ids,omitempty"`   // insert: the new ids; update/delete: the ids targeted
	V     int64   `json:"v,omitempty"`     // insert/update: the value of v
	SQL   string  `json:"sql,omitempty"`
}

// crashWorkerMain is a lancecat writer process: it runs random statements on tables of its own
// namespace until it is killed, printing each one before and after it runs.
func crashWorkerMain(spec string) int {
	parts := strings.Split(spec, "|")
	if len(parts) != 4 {
		fmt.Fprintln(os.Stderr, "crash worker: bad spec", spec)
		return 2
	}
	dsn, ns := parts[0], parts[1]
	seed, _ := strconv.ParseInt(parts[2], 10, 64)
	nextID, _ := strconv.ParseInt(parts[3], 10, 64)
	rng := rand.New(rand.NewSource(seed))
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash worker:", err)
		return 1
	}
	defer db.Close()
	ctx := context.Background()
	enc := json.NewEncoder(os.Stdout) // unbuffered: one write(2) per line, atomic on a pipe
	seq := 0
	run := func(op crashOp) error {
		seq++
		op.Seq, op.Phase = seq, "begin"
		if err := enc.Encode(op); err != nil {
			return err
		}
		// The catalog is shared with other writers: a conflict that outlasted the driver's own
		// retries changed nothing (a failed Exec never half-lands), so it is simply run again.
		for i := 0; ; i++ {
			_, err := db.ExecContext(ctx, op.SQL)
			if err == nil {
				break
			}
			if !errors.Is(err, catalog.ErrConcurrentModification) || i >= 50 {
				return fmt.Errorf("%s: %w", op.SQL, err)
			}
			time.Sleep(time.Duration(5+rand.Intn(20)) * time.Millisecond) // not rng: a replay makes the same statements
		}
		return enc.Encode(crashOp{Seq: seq, Phase: "done"})
	}
	if err := run(crashOp{Kind: "schema", Table: ns, SQL: "CREATE SCHEMA " + ns}); err != nil {
		fmt.Fprintln(os.Stderr, "crash worker:", err)
		return 1
	}
	tables := map[string]map[int64]bool{} // this writer's tables and their ids (nobody else writes them)
	nTables, nSchemas := 0, 0
	var schemas []string // extra schemas this writer created and has not dropped
	pick := func() string {
		names := slices.Sorted(maps.Keys(tables))
		return names[rng.Intn(len(names))]
	}
	someIDs := func(tbl string) []int64 {
		ids := slices.Sorted(maps.Keys(tables[tbl]))
		if len(ids) == 0 {
			return []int64{-1} // matches no row; the statement still runs
		}
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return ids[:1+rng.Intn(min(3, len(ids)))]
	}
	inList := func(ids []int64) string {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.FormatInt(id, 10)
		}
		return strings.Join(s, ", ")
	}
	for {
		var op crashOp
		r := rng.Float64()
		switch {
		case len(tables) == 0 || r < 0.12:
			nTables++
			in := ns // a table of the writer's own schema, or of one of its extra schemas
			if len(schemas) > 0 && rng.Intn(3) == 0 {
				in = schemas[rng.Intn(len(schemas))]
			}
			tbl := fmt.Sprintf("%s.t%d", in, nTables)
			op = crashOp{Kind: "create", Table: tbl, SQL: "CREATE TABLE " + tbl + " (id BIGINT NOT NULL, v BIGINT, PRIMARY KEY (id))"}
		case r < 0.55:
			tbl := pick()
			n := 1 + rng.Intn(40)
			op = crashOp{Kind: "insert", Table: tbl, V: rng.Int63n(1000)}
			vals := make([]string, n)
			for i := range vals {
				op.IDs = append(op.IDs, nextID)
				vals[i] = fmt.Sprintf("(%d, %d)", nextID, op.V)
				nextID++
			}
			op.SQL = "INSERT INTO " + tbl + " VALUES " + strings.Join(vals, ", ")
		case r < 0.72:
			tbl := pick()
			op = crashOp{Kind: "update", Table: tbl, IDs: someIDs(tbl), V: 1000 + rng.Int63n(1000)}
			op.SQL = fmt.Sprintf("UPDATE %s SET v = %d WHERE id IN (%s)", tbl, op.V, inList(op.IDs))
		case r < 0.88:
			tbl := pick()
			op = crashOp{Kind: "delete", Table: tbl, IDs: someIDs(tbl)}
			op.SQL = fmt.Sprintf("DELETE FROM %s WHERE id IN (%s)", tbl, inList(op.IDs))
		case r < 0.91:
			// An upsert (one Update version) sets v of existing ids and inserts a new one:
			// to the model it is an insert of every id.
			tbl := pick()
			op = crashOp{Kind: "insert", Table: tbl, V: 2000 + rng.Int63n(1000)}
			for _, id := range someIDs(tbl) {
				if id >= 0 {
					op.IDs = append(op.IDs, id)
				}
			}
			op.IDs = append(op.IDs, nextID)
			nextID++
			vals := make([]string, len(op.IDs))
			for i, id := range op.IDs {
				vals[i] = fmt.Sprintf("(%d, %d)", id, op.V)
			}
			op.SQL = "INSERT INTO " + tbl + " VALUES " + strings.Join(vals, ", ") + " ON DUPLICATE KEY UPDATE v = VALUES(v)"
		case r < 0.93:
			// OPTIMIZE (ReserveFragments, Rewrite) changes no row.
			tbl := pick()
			op = crashOp{Kind: "optimize", Table: tbl, SQL: "OPTIMIZE TABLE " + tbl}
		case r < 0.95:
			tbl := pick()
			op = crashOp{Kind: "drop", Table: tbl, SQL: "DROP TABLE " + tbl}
		case r < 0.975 && len(schemas) > 0:
			s := schemas[rng.Intn(len(schemas))]
			op = crashOp{Kind: "dropschema", Table: s, SQL: "DROP SCHEMA " + s + " CASCADE"}
		default:
			nSchemas++
			s := fmt.Sprintf("%s_s%d", ns, nSchemas)
			op = crashOp{Kind: "schema", Table: s, SQL: "CREATE SCHEMA " + s}
		}
		if err := run(op); err != nil {
			fmt.Fprintln(os.Stderr, "crash worker:", err)
			return 1
		}
		switch op.Kind {
		case "create":
			tables[op.Table] = map[int64]bool{}
		case "insert":
			for _, id := range op.IDs {
				tables[op.Table][id] = true
			}
		case "delete":
			for _, id := range op.IDs {
				delete(tables[op.Table], id)
			}
		case "drop":
			delete(tables, op.Table)
		case "schema":
			if op.Table != ns {
				schemas = append(schemas, op.Table)
			}
		case "dropschema":
			schemas = slices.DeleteFunc(schemas, func(s string) bool { return s == op.Table })
			maps.DeleteFunc(tables, func(k string, _ map[int64]bool) bool { return strings.HasPrefix(k, op.Table+".") })
		}
	}
}

// crashModel is what the catalog must hold: the lancecat writers' namespaces and tables with
// their rows (id -> v), and the rows of the reference's tables.
type crashModel struct {
	namespaces map[string]bool
	tables     map[string]map[int64]int64 // "ns.t" -> id -> v
}

func (m *crashModel) clone() *crashModel {
	c := &crashModel{namespaces: maps.Clone(m.namespaces), tables: map[string]map[int64]int64{}}
	for k, rows := range m.tables {
		c.tables[k] = maps.Clone(rows)
	}
	return c
}

// apply applies a committed statement.
func (m *crashModel) apply(op crashOp) {
	rows := m.tables[op.Table]
	switch op.Kind {
	case "schema":
		m.namespaces[op.Table] = true
	case "create":
		m.tables[op.Table] = map[int64]int64{}
	case "insert":
		for _, id := range op.IDs {
			rows[id] = op.V
		}
	case "update":
		for _, id := range op.IDs {
			if _, ok := rows[id]; ok {
				rows[id] = op.V
			}
		}
	case "delete":
		for _, id := range op.IDs {
			delete(rows, id)
		}
	case "drop":
		delete(m.tables, op.Table)
	case "dropschema":
		delete(m.namespaces, op.Table)
		maps.DeleteFunc(m.tables, func(k string, _ map[int64]int64) bool { return strings.HasPrefix(k, op.Table+".") })
	}
}

// crashProc is one running writer process and the lines it printed.
type crashProc struct {
	name    string
	cmd     *exec.Cmd
	lines   []string
	stderr  strings.Builder
	printed atomic.Int64  // len(lines), readable while the process runs
	done    chan struct{} // closed when stdout reached EOF
	// inserted is closed once the writer reports its first committed INSERT. The kill clock
	// starts there, not at start-up: on a loaded machine a window counted from the first
	// statement could close before any INSERT committed, and the round would cover nothing.
	inserted chan struct{}
}

func startCrashProc(t *testing.T, name string, cmd *exec.Cmd) *crashProc {
	t.Helper()
	p := &crashProc{name: name, cmd: cmd, done: make(chan struct{}), inserted: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		kinds := map[int]string{} // seq -> kind of each statement begun
		inserted := false
		for sc.Scan() {
			p.lines = append(p.lines, sc.Text())
			p.printed.Add(1)
			var op crashOp
			if inserted || json.Unmarshal(sc.Bytes(), &op) != nil {
				continue // the reference's writers print other lines
			}
			switch {
			case op.Phase == "begin":
				kinds[op.Seq] = op.Kind
			case op.Phase == "done" && kinds[op.Seq] == "insert":
				inserted = true
				close(p.inserted)
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	return p
}

// wait waits for the process and its output; it reports whether the process was killed.
func (p *crashProc) wait() (killed bool, err error) {
	<-p.done
	err = p.cmd.Wait()
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %v: %s", p.name, err, strings.TrimSpace(p.stderr.String()))
	}
	return false, nil
}

// crashSetup reads the seed (a new one, or LANCECAT_CRASH_SEED's) and the rounds, logs them
// with what a replay repeats, and finds the peer's directory.
func crashSetup(t *testing.T, defaultRounds int, replays string) (rng *rand.Rand, rounds int, peerDir string) {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv(crashSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", crashSeedEnv, s, err)
		}
	}
	rounds = crashRounds(defaultRounds)
	t.Logf("seed %d (%s=%d replays %s), %d rounds", seed, crashSeedEnv, seed, replays, rounds)
	peerDir, err := peer.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return rand.New(rand.NewSource(seed)), rounds, peerDir
}

func crashRounds(def int) int {
	if n, err := strconv.Atoi(os.Getenv(crashRoundsEnv)); err == nil && n > 0 {
		return n
	}
	return def
}

// crashTarget is the catalog the kill test runs on: a local directory, or a prefix on an
// object-store server (storage options set).
type crashTarget struct {
	uri  string
	opts map[string]string
}

// dsn is the driver's data source name for the target.
func (c crashTarget) dsn() string {
	if len(c.opts) == 0 {
		return c.uri
	}
	q := url.Values{}
	for k, v := range c.opts {
		q.Set("storage."+k, v)
	}
	return c.uri + "?" + q.Encode()
}

// TestKillWritersUnderPeerLoad is the multi-process crash test (see the top of the file). Each
// round starts 3 lancecat writers and 2 reference writers and SIGKILLs each lancecat writer at a
// random moment within 2 s of its first committed INSERT. The seed is printed (t.Log); with
// LANCECAT_CRASH_SEED it replays the same statements and kill delays (not the same timing of
// the processes). LANCECAT_CRASH_ROUNDS sets the rounds (3 by default, more to soak).
func TestKillWritersUnderPeerLoad(t *testing.T) {
	peer.Require(t)
	if testing.Short() {
		t.Skip("multi-process kill test: skipped in -short mode")
	}
	runKillTest(t, crashTarget{uri: t.TempDir()}, 3, 2*time.Second)
}

// TestKillWritersUnderPeerLoadOnS3 is the same on the S3 server (versitygw), where conditional
// PUT decides commit races and a killed writer leaves uploads half done; 2 rounds by default,
// and a kill window of 5 s (statements are slower there).
func TestKillWritersUnderPeerLoadOnS3(t *testing.T) {
	killTestOnServer(t, func(t *testing.T) *testservers.Server { return testservers.S3(t) })
}

// TestKillWritersUnderPeerLoadOnAzure is the same on Azure Blob (azurite), where commits are
// conditional Put Blob calls (If-None-Match) and the reference takes its account from the
// environment.
func TestKillWritersUnderPeerLoadOnAzure(t *testing.T) {
	killTestOnServer(t, func(t *testing.T) *testservers.Server { return testservers.Azure(t) })
}

// killTestOnServer runs the kill test on an object-store server: 2 rounds by default, a kill
// window of 5 s. (GCS is left out: the reference cannot write to fake-gcs-server, see
// TestPeerInteropOnGCS.)
func killTestOnServer(t *testing.T, start func(*testing.T) *testservers.Server) {
	runKillTest(t, serverCrashTarget(t, start), 2, 5*time.Second)
}

// serverCrashTarget starts an object-store server and returns a fresh prefix on it as a kill
// test's target, with the reference's environment set for it (its region and endpoint, and
// crash-writer.mjs's storage options).
func serverCrashTarget(t *testing.T, start func(*testing.T) *testservers.Server) crashTarget {
	peer.Require(t)
	if testing.Short() {
		t.Skip("multi-process kill test: skipped in -short mode")
	}
	srv := start(t)
	for _, kv := range srv.PeerEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	opts, err := json.Marshal(srv.StorageOptions)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(crashStorageEnv, string(opts))
	return crashTarget{uri: srv.URI(fmt.Sprintf("crash-%d", time.Now().UnixNano())), opts: srv.StorageOptions}
}

// runKillTest runs the rounds on target; each lancecat writer is killed within killWindow of its first
// committed INSERT.
func runKillTest(t *testing.T, target crashTarget, defaultRounds int, killWindow time.Duration) {
	rng, rounds, peerDir := crashSetup(t, defaultRounds, "its statements and kill delays")
	ctx := context.Background()
	model := &crashModel{namespaces: map[string]bool{}, tables: map[string]map[int64]int64{}}
	stats := map[string]int{}
	debris := crashDebris{}
	start := time.Now()
	for round := 0; round < rounds; round++ {
		var procs []*crashProc
		const writers = 3
		for w := 0; w < writers; w++ {
			ns := fmt.Sprintf("r%dw%d", round, w)
			spec := fmt.Sprintf("%s|%s|%d|%d", target.dsn(), ns, rng.Int63(), int64(round*writers+w+1)*1_000_000)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashWorkerEnv+"="+spec)
			procs = append(procs, startCrashProc(t, ns, cmd))
		}
		var peers []*crashProc
		for i := 0; i < 2; i++ {
			ns := fmt.Sprintf("r%dpeer%d", round, i)
			base := int64(900_000_000 + round*1_000_000 + i*100_000)
			cmd := exec.Command("node", filepath.Join(peerDir, "crash-writer.mjs"), "write", target.uri, ns, "5", strconv.FormatInt(base, 10))
			cmd.Dir = peerDir
			peers = append(peers, startCrashProc(t, ns, cmd))
		}

		// Kill every lancecat writer at its own random moment after its first committed INSERT
		// (a kill while a process still starts up, or before it wrote any rows, would test
		// little; counting from progress rather than start-up keeps that true under load).
		var wg sync.WaitGroup
		for _, p := range procs {
			after := time.Duration(rng.Int63n(int64(killWindow)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-p.inserted:
				case <-p.done: // it failed before writing; wait reports why
				case <-time.After(time.Minute):
					t.Errorf("round %d: writer %s committed no INSERT within a minute; killing it anyway", round, p.name)
				}
				time.Sleep(after)
				_ = p.cmd.Process.Signal(syscall.SIGKILL)
			}()
		}
		wg.Wait()
		for _, p := range procs {
			killed, err := p.wait()
			if err != nil {
				t.Fatalf("round %d: lancecat writer %v", round, err)
			}
			if !killed {
				t.Fatalf("round %d: writer %s ended before its kill", round, p.name)
			}
		}
		for _, pp := range peers {
			if _, err := pp.wait(); err != nil {
				t.Fatalf("round %d: reference writer %v", round, err)
			}
		}

		// What the writers saw committed, and the statement each had in flight.
		var inflight []crashOp
		for _, p := range procs {
			if pending := applyCrashLines(t, p, model, stats); pending != nil {
				inflight = append(inflight, *pending)
			}
		}
		for _, pp := range peers {
			model.namespaces[pp.name] = true
			peerRows := map[int64]int64{}
			for _, line := range pp.lines {
				var w struct {
					Begin string  `json:"begin"`
					IDs   []int64 `json:"ids"`
				}
				if err := json.Unmarshal([]byte(line), &w); err != nil {
					t.Fatalf("reference writer printed %q: %v", line, err)
				}
				if w.Begin != "" {
					continue // announced, not yet committed
				}
				for _, id := range w.IDs {
					peerRows[id] = 2 * id
				}
			}
			model.tables[pp.name+".p"] = peerRows
		}

		model = checkCrashRound(t, ctx, target, round, model, inflight, debris)

		// The reference writes once more, into a lancecat writer's table if one is left.
		if names := slices.Sorted(maps.Keys(model.tables)); len(names) > 0 {
			var table string
			for _, n := range names {
				if !strings.Contains(n, "peer") {
					table = n
					break
				}
			}
			if table == "" {
				table = names[0]
			}
			nsName, tbl, _ := strings.Cut(table, ".")
			base := int64(990_000_000 + round*1000)
			rows := []map[string]any{{"id": base, "v": 7}, {"id": base + 1, "v": nil}}
			args := map[string]any{"uri": target.uri, "namespace": []string{nsName}, "name": tbl, "rows": rows}
			if target.opts != nil {
				args["storageOptions"] = target.opts
			}
			if err := peer.Op(ctx, t, "add", args, nil); err != nil {
				t.Fatalf("round %d: the reference cannot append to %s after the crashes: %v", round, table, err)
			}
			model.tables[table][base] = 7
			model.tables[table][base+1] = nullV
			got := crashTableRows(t, ctx, openCrashDB(t, target.dsn()), table)
			if !maps.Equal(got, model.tables[table]) {
				t.Fatalf("round %d: after the reference's append lancecat reads %s as %v, want %v", round, table, got, model.tables[table])
			}
		}
	}
	t.Logf("%d rounds in %s; lancecat statements committed and killed: %v", rounds, time.Since(start).Round(time.Millisecond), stats)
	var debrisBytes int64
	for _, size := range debris {
		debrisBytes += size
	}
	t.Logf("inside tables after vacuum (over all rounds): %d distinct data files (%d bytes) that no version references, staged by killed writers", len(debris), debrisBytes)
	if stats["insert"] == 0 {
		t.Errorf("no INSERT committed in %d rounds: the test covered nothing of it", rounds)
	}
}

// applyCrashLines applies to model the statements lancecat writer p saw committed (counted in
// stats by kind) and returns the one it had in flight when it was killed (nil when none).
func applyCrashLines(t *testing.T, p *crashProc, model *crashModel, stats map[string]int) *crashOp {
	t.Helper()
	var pending *crashOp
	for i, line := range p.lines {
		var op crashOp
		if err := json.Unmarshal([]byte(line), &op); err != nil {
			if i == len(p.lines)-1 {
				break // torn by the kill
			}
			t.Fatalf("%s printed %q: %v", p.name, line, err)
		}
		switch op.Phase {
		case "begin":
			pending = &op
		case "done":
			if pending == nil || pending.Seq != op.Seq {
				t.Fatalf("%s: done %d without its begin", p.name, op.Seq)
			}
			model.apply(*pending)
			stats[pending.Kind]++
			pending = nil
		}
	}
	if pending != nil {
		stats["in flight at the kill"]++
	}
	return pending
}

// nullV stands for a NULL v in a model's rows (no writer writes it).
const nullV = int64(-1 << 62)

func openCrashDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("lancecat", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// crashTableRows reads id and v of a table through the driver; an error or a duplicated id
// fails the test.
func crashTableRows(t *testing.T, ctx context.Context, db *sql.DB, table string) map[int64]int64 {
	t.Helper()
	rows, err := scanCrashTable(ctx, db, table)
	if err != nil {
		t.Fatalf("lancecat SELECT from %s: %v", table, err)
	}
	return rows
}

// checkCrashRound checks the catalog after a round against the model and the statements in
// flight at the kills (each landed entirely or not at all), and returns the model updated with
// the outcome of those. It also vacuums, checks that no foreign directory is left, and adds the
// staged data files left inside tables to debris.
func checkCrashRound(t *testing.T, ctx context.Context, target crashTarget, round int, model *crashModel, inflight []crashOp, debris crashDebris) *crashModel {
	t.Helper()
	db := openCrashDB(t, target.dsn())
	strs := func(q string) []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("round %d: lancecat %s: %v", round, q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("round %d: lancecat %s: %v", round, q, err)
		}
		return out
	}
	// lancecat: list, describe, scan.
	namespaces := strs("SHOW SCHEMAS")
	got := &crashModel{namespaces: map[string]bool{}, tables: map[string]map[int64]int64{}}
	for _, n := range namespaces {
		got.namespaces[n] = true
		for _, tbl := range strs("SHOW TABLES FROM " + n) {
			key := n + "." + tbl
			if cols := strs("SELECT column_name FROM information_schema.columns WHERE table_schema = '" + n + "' AND table_name = '" + tbl + "' ORDER BY ordinal_position"); !slices.Equal(cols, []string{"id", "v"}) {
				t.Fatalf("round %d: lancecat describes %s with columns %v", round, key, cols)
			}
			got.tables[key] = crashTableRows(t, ctx, db, key)
		}
	}
	if root := strs("SHOW TABLES"); len(root) != 0 {
		t.Errorf("round %d: tables in the root namespace nobody created: %v", round, root)
	}

	match := matchInflight(model, inflight, got)
	if match == nil {
		t.Fatalf("round %d: lancecat's catalog is neither the committed state nor it plus any of the statements in flight %+v\n%s",
			round, inflight, crashDiff(model, got))
	}

	// The reference lists, opens and scans the same.
	out, err := peer.Run(ctx, t, "crash-writer.mjs", "dump", target.uri)
	if err != nil {
		t.Fatalf("round %d: reference dump: %v", round, err)
	}
	var dump struct {
		Namespaces []string `json:"namespaces"`
		Tables     map[string]struct {
			Fields []string    `json:"fields"`
			Rows   [][]*string `json:"rows"`
		} `json:"tables"`
		Errors []string `json:"errors"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		t.Fatalf("round %d: reference dump (%d bytes) %.300q...: %v", round, len(out), out, err)
	}
	if len(dump.Errors) > 0 {
		t.Fatalf("round %d: the reference cannot open or scan listed tables: %v", round, dump.Errors)
	}
	sort.Strings(dump.Namespaces)
	if !slices.Equal(dump.Namespaces, namespaces) {
		t.Fatalf("round %d: the reference lists namespaces %v, lancecat %v", round, dump.Namespaces, namespaces)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(dump.Tables)), slices.Sorted(maps.Keys(got.tables))) {
		t.Fatalf("round %d: the reference lists tables %v, lancecat %v", round, slices.Sorted(maps.Keys(dump.Tables)), slices.Sorted(maps.Keys(got.tables)))
	}
	for key, pt := range dump.Tables {
		if !slices.Equal(pt.Fields, []string{"id", "v"}) {
			t.Errorf("round %d: the reference describes %s as %v", round, key, pt.Fields)
		}
		rows := map[int64]int64{}
		for _, r := range pt.Rows {
			id, _ := strconv.ParseInt(*r[0], 10, 64)
			if _, dup := rows[id]; dup {
				t.Errorf("round %d: the reference reads id %d twice in %s", round, id, key)
			}
			rows[id] = nullV
			if r[1] != nil {
				rows[id], _ = strconv.ParseInt(*r[1], 10, 64)
			}
		}
		if !maps.Equal(rows, got.tables[key]) {
			t.Errorf("round %d: the reference reads %d rows of %s, lancecat %d (or other values)", round, len(rows), key, len(got.tables[key]))
		}
	}

	// Vacuum leaves no directory the catalog does not own.
	if _, err := db.ExecContext(ctx, "CALL vacuum_catalog('0s')"); err != nil {
		t.Fatalf("round %d: vacuum: %v", round, err)
	}
	c, entries, foreign := foreignDirs(t, ctx, target)
	if len(foreign) > 0 {
		t.Errorf("round %d: after CALL vacuum_catalog('0s') the root holds what the catalog does not own: %v", round, foreign)
	}
	// Data files a killed INSERT, UPDATE or DELETE staged inside a table's directory, referenced by
	// no version: vacuum_catalog removes them too (every version of the table is kept).
	roundDebris := crashDebris{}
	for _, e := range entries {
		if e.Location == nil || e.ObjectType != catalog.ObjectTypeTable {
			continue
		}
		unreferencedDataFiles(t, ctx, c.Store, *e.Location, roundDebris)
	}
	if len(roundDebris) > 0 {
		t.Errorf("round %d: after CALL vacuum_catalog('0s') tables still hold data files no version references: %v", round, slices.Sorted(maps.Keys(roundDebris)))
	}
	maps.Copy(debris, roundDebris)
	// Vacuum changed nothing the catalog lists.
	for key, rows := range match.tables {
		if after := crashTableRows(t, ctx, db, key); !maps.Equal(after, rows) {
			t.Fatalf("round %d: vacuum changed the rows of %s", round, key)
		}
	}
	return match
}

// foreignDirs opens the catalog at target and returns it (closed at the end of the test), its
// `__manifest` entries, and the directories of its root that no entry owns.
func foreignDirs(t *testing.T, ctx context.Context, target crashTarget) (*manifest.Catalog, []catalog.Row, []string) {
	t.Helper()
	owned := map[string]bool{catalog.ManifestDir: true}
	c, err := manifest.OpenCatalog(ctx, target.uri, manifest.Options{Storage: storage.Options{StorageOptions: target.opts}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	snap, err := manifest.NewManifestTable(c.Store).Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := snap.Scan(ctx, catalog.RowFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Location != nil {
			owned[strings.SplitN(*e.Location, "/", 2)[0]] = true
		}
	}
	_, dirs, err := c.Store.ListDir(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var foreign []string
	for _, d := range dirs {
		if !owned[d] {
			foreign = append(foreign, d)
		}
	}
	return c, entries, foreign
}

// matchInflight returns model plus the statements in flight that landed (each landed whole or
// not at all) when that equals got: every combination (at most 2^len(inflight)) is tried. It
// returns nil when none matches.
func matchInflight(model *crashModel, inflight []crashOp, got *crashModel) *crashModel {
	for mask := 0; mask < 1<<len(inflight); mask++ {
		want := model.clone()
		for i, op := range inflight {
			if mask&(1<<i) != 0 {
				want.apply(op)
			}
		}
		if maps.Equal(want.namespaces, got.namespaces) && maps.EqualFunc(want.tables, got.tables, maps.Equal) {
			return want
		}
	}
	return nil
}

// crashDebris collects the staged data files found inside tables after vacuum (path -> size).
type crashDebris map[string]int64

// unreferencedDataFiles adds the data files of the table at dir that no version references.
func unreferencedDataFiles(t *testing.T, ctx context.Context, store storage.Store, dir string, debris crashDebris) {
	t.Helper()
	versions, err := dataset.ListVersions(ctx, store, dir)
	if err != nil {
		if errors.Is(err, dataset.ErrNotFound) {
			return // declared, no data yet
		}
		t.Fatalf("versions of %s: %v", dir, err)
	}
	referenced := map[string]bool{}
	for _, v := range versions {
		ds, err := dataset.Open(ctx, store, dir, dataset.OpenOptions{Version: v.Version})
		if err != nil {
			t.Fatalf("open %s version %d: %v", dir, v.Version, err)
		}
		for _, f := range ds.Manifest().Fragments {
			for _, df := range f.Files {
				referenced[path.Join(dir, "data", df.Path)] = true
			}
		}
	}
	objs, err := store.List(ctx, dir+"/data/")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if !referenced[o.Path] {
			debris[o.Path] = o.Size
		}
	}
}

// crashDiff describes how the catalog differs from the committed model.
func crashDiff(want, got *crashModel) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(want.namespaces)) {
		if !got.namespaces[n] {
			fmt.Fprintf(&b, "namespace %s missing\n", n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(got.namespaces)) {
		if !want.namespaces[n] {
			fmt.Fprintf(&b, "namespace %s unexpected\n", n)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want.tables)) {
		g, ok := got.tables[k]
		switch {
		case !ok:
			fmt.Fprintf(&b, "table %s missing\n", k)
		case !maps.Equal(g, want.tables[k]):
			var lost, extra, changed []int64
			for id, v := range want.tables[k] {
				if gv, ok := g[id]; !ok {
					lost = append(lost, id)
				} else if gv != v {
					changed = append(changed, id)
				}
			}
			for id := range g {
				if _, ok := want.tables[k][id]; !ok {
					extra = append(extra, id)
				}
			}
			fmt.Fprintf(&b, "table %s: lost %v extra %v changed %v\n", k, lost, extra, changed)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got.tables)) {
		if _, ok := want.tables[k]; !ok {
			fmt.Fprintf(&b, "table %s unexpected\n", k)
		}
	}
	return b.String()
}
