package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/internal/testservers"
)

// The other side of the kill -9 test (issue #10): the REFERENCE's writer processes
// (crash-writer.mjs: create a namespace, then tables with rows, then appends) are SIGKILLed at
// random moments while lancecat writer processes run their random SQL on the same catalog.
// After each round, with every process gone, lancecat lists, describes and scans every table
// without a panic: a table the reference committed holds its committed rows (plus the one
// batch in flight at the kill, whole or not at all); a table the reference was creating when it
// died is invisible, or complete, or gives a clear typed error (never Internal, never a wrong
// result; pinned: the reference can leave a `__manifest` entry without a dataset, which it lists
// and cannot open, and lancecat lists as declared and answers with InvalidTableState); both list
// the same tables; lancecat's own tables hold exactly what its writers committed; lancecat keeps
// writing, into its namespaces and into the reference's; and `CALL vacuum_catalog('0s')`
// leaves no directory the catalog does not own. On local disk, S3 and Azure Blob.
// LANCECAT_CRASH_ROUNDS sets the rounds (2 by default, 1 on the servers) and
// LANCECAT_CRASH_SEED replays the kill delays.

// The reference writers' namespaces ("r0peer1") and tables ("r0peer1.p2").
var (
	peerNamespaceName = regexp.MustCompile(`^r\d+peer\d+$`)
	peerTableName     = regexp.MustCompile(`^r\d+peer\d+\.p\d*$`)
)

// peerWrites is what one reference writer printed: the namespace it announced and whether
// that committed, each table's committed ids and the table or batch in flight at the kill.
type peerWrites struct {
	namespace     string
	namespaceDone bool
	committed     map[string][]int64 // "ns.p" -> ids whose write returned
	inflightTable string             // the table of the operation in flight ("" when none)
	inflightKind  string             // "namespace", "create" or "add"
	inflightIDs   []int64
	finished      bool // it printed "ok": it ended before its kill
}

func parsePeerWrites(t *testing.T, p *crashProc) peerWrites {
	t.Helper()
	w := peerWrites{namespace: p.name, committed: map[string][]int64{}}
	for i, line := range p.lines {
		var l struct {
			Begin string  `json:"begin"`
			Table string  `json:"table"`
			IDs   []int64 `json:"ids"`
			OK    bool    `json:"ok"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			if i == len(p.lines)-1 {
				break // torn by the kill
			}
			t.Fatalf("reference writer %s printed %q: %v", p.name, line, err)
		}
		switch {
		case l.OK:
			w.finished = true
		case l.Begin != "":
			if l.Begin != "namespace" {
				w.namespaceDone = true // the namespace call returned before the next began
			}
			w.inflightKind, w.inflightTable, w.inflightIDs = l.Begin, l.Table, l.IDs
		default:
			w.committed[l.Table] = append(w.committed[l.Table], l.IDs...)
			w.inflightKind, w.inflightTable, w.inflightIDs = "", "", nil
		}
	}
	return w
}

// A reference writer creates its namespace, then peerWriterTables tables with
// peerWriterAppends appends each, and prints peerWriterLines lines when it is not killed: a
// "begin" line and a "committed" line per operation (the namespace has only "begin"), and "ok".
const (
	peerWriterTables  = 3
	peerWriterAppends = 3
	peerWriterLines   = 1 + peerWriterTables*(2+2*peerWriterAppends) + 1
)

// TestKillReferenceWritersUnderLancecatLoad: see the comment at the top of the file. Each round
// starts 2 lancecat writers and 3 reference writers, SIGKILLs each reference writer after a
// random number of its operations, then kills the lancecat writers.
func TestKillReferenceWritersUnderLancecatLoad(t *testing.T) {
	peer.Require(t)
	if testing.Short() {
		t.Skip("multi-process kill test: skipped in -short mode")
	}
	runPeerKillTest(t, crashTarget{uri: t.TempDir()}, 2)
}

// TestKillReferenceWritersUnderLancecatLoadOnS3 is the same on the S3 server (versitygw): a
// reference killed mid-upload leaves multipart uploads and half-written prefixes. One round by
// default.
func TestKillReferenceWritersUnderLancecatLoadOnS3(t *testing.T) {
	runPeerKillTest(t, serverCrashTarget(t, func(t *testing.T) *testservers.Server { return testservers.S3(t) }), 1)
}

// TestKillReferenceWritersUnderLancecatLoadOnAzure is the same on Azure Blob (azurite).
func TestKillReferenceWritersUnderLancecatLoadOnAzure(t *testing.T) {
	runPeerKillTest(t, serverCrashTarget(t, func(t *testing.T) *testservers.Server { return testservers.Azure(t) }), 1)
}

// runPeerKillTest runs the rounds on target.
func runPeerKillTest(t *testing.T, target crashTarget, defaultRounds int) {
	rng, rounds, peerDir := crashSetup(t, defaultRounds, "the kill delays")
	ctx := context.Background()
	model := &crashModel{namespaces: map[string]bool{}, tables: map[string]map[int64]int64{}} // lancecat's side only
	stats := map[string]int{}
	outcomes := map[string]int{} // what the reference's killed writes left, as lancecat sees it
	start := time.Now()
	for round := 0; round < rounds; round++ {
		var lcs []*crashProc
		for w := 0; w < 2; w++ {
			ns := fmt.Sprintf("r%dw%d", round, w)
			spec := fmt.Sprintf("%s|%s|%d|%d", target.dsn(), ns, rng.Int63(), int64(round*2+w+1)*1_000_000)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashWorkerEnv+"="+spec)
			lcs = append(lcs, startCrashProc(t, ns, cmd))
		}
		var peers []*crashProc
		for i := 0; i < 3; i++ {
			ns := fmt.Sprintf("r%dpeer%d", round, i)
			base := int64(900_000_000 + round*1_000_000 + i*100_000)
			cmd := exec.Command("node", filepath.Join(peerDir, "crash-writer.mjs"), "write", target.uri, ns,
				strconv.Itoa(peerWriterAppends), strconv.FormatInt(base, 10), strconv.Itoa(peerWriterTables))
			cmd.Dir = peerDir
			peers = append(peers, startCrashProc(t, ns, cmd))
		}
		// Each reference writer is killed after a random number of its lines (so the kill falls
		// in any of its operations with equal chance, however fast the machine), plus up to
		// 60 ms into the next operation.
		var wg sync.WaitGroup
		for _, p := range peers {
			lines := 1 + rng.Int63n(peerWriterLines-1)
			after := time.Duration(rng.Int63n(int64(60 * time.Millisecond)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				deadline := time.After(time.Minute)
			wait:
				for p.printed.Load() < lines {
					select {
					case <-p.done:
						break wait
					case <-deadline:
						break wait
					case <-time.After(2 * time.Millisecond):
					}
				}
				time.Sleep(after)
				_ = p.cmd.Process.Signal(syscall.SIGKILL)
			}()
		}
		wg.Wait()
		var writes []peerWrites
		for _, p := range peers {
			killed, err := p.wait()
			if err != nil {
				t.Fatalf("round %d: reference writer %v", round, err)
			}
			w := parsePeerWrites(t, p)
			if !killed && !w.finished {
				t.Fatalf("round %d: reference writer %s ended without finishing: %s", round, p.name, p.stderr.String())
			}
			switch {
			case killed && w.inflightKind == "":
				stats["reference killed between operations"]++
			case killed:
				stats["reference killed during "+w.inflightKind]++
			default:
				stats["reference finished before its kill"]++
			}
			writes = append(writes, w)
		}
		// The lancecat writers ran all along; they go now (killed too: their statement in
		// flight is checked as in TestKillWritersUnderPeerLoad).
		time.Sleep(time.Duration(rng.Int63n(int64(300 * time.Millisecond))))
		var inflight []crashOp
		for _, p := range lcs {
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			if _, err := p.wait(); err != nil {
				t.Fatalf("round %d: lancecat writer %v", round, err)
			}
			if pending := applyCrashLines(t, p, model, stats); pending != nil {
				inflight = append(inflight, *pending)
			}
		}
		model = checkPeerKillRound(t, ctx, target, round, model, inflight, writes, outcomes)
	}
	t.Logf("%d rounds in %s; writers: %v", rounds, time.Since(start).Round(time.Millisecond), stats)
	t.Logf("the reference's tables after its kills, as lancecat sees them: %v", outcomes)
	if stats["insert"] == 0 {
		t.Errorf("no lancecat INSERT committed in %d rounds: lancecat did not write meanwhile", rounds)
	}
}

// checkPeerKillRound checks a round (see the top of the file) and returns lancecat's model
// with its in-flight statements resolved and the writes of the check itself applied.
func checkPeerKillRound(t *testing.T, ctx context.Context, target crashTarget, round int, model *crashModel,
	inflight []crashOp, writes []peerWrites, outcomes map[string]int) *crashModel {
	t.Helper()
	db := openCrashDB(t, target.dsn())
	strs := func(q string) ([]string, error) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	}
	must := func(q string) []string {
		t.Helper()
		out, err := strs(q)
		if err != nil {
			t.Fatalf("round %d: lancecat %s: %v", round, q, err)
		}
		return out
	}
	// clearError fails the test unless err is a driver error with a code that says what is
	// wrong with the table (never Internal: that is a bug, or a panic recovered at the driver).
	clearError := func(what string, err error) string {
		t.Helper()
		var de *lancecat.Error
		if !errors.As(err, &de) || de.Code == catalog.CodeInternal {
			t.Errorf("round %d: %s: not a clear typed error: %v", round, what, err)
			return "untyped"
		}
		return de.Code.String()
	}

	// Every namespace and table lancecat lists; the schema-wide views must answer too (a BI
	// tool's schema scan while a half-created table is listed).
	for _, q := range []string{"SELECT * FROM information_schema.tables", "SELECT * FROM information_schema.columns"} {
		if err := drain(ctx, db, q); err != nil {
			outcomes["information_schema scan: "+clearError(q, err)]++
		}
	}
	got := &crashModel{namespaces: map[string]bool{}, tables: map[string]map[int64]int64{}}
	peerListed := map[string]bool{}
	peerRows := map[string]map[int64]int64{}
	for _, n := range must("SHOW SCHEMAS") {
		if peerNamespaceName.MatchString(n) {
			peerListed[n] = true
		} else {
			got.namespaces[n] = true
		}
		for _, tbl := range must("SHOW TABLES FROM " + n) {
			key := n + "." + tbl
			if !peerTableName.MatchString(key) {
				got.tables[key] = crashTableRows(t, ctx, db, key)
				continue
			}
			peerListed[key] = true
			cols, err := strs("SELECT column_name FROM information_schema.columns WHERE table_schema = '" + n + "' AND table_name = '" + tbl + "' ORDER BY ordinal_position")
			if err != nil {
				outcomes["listed, describe fails: "+clearError("describe "+key, err)]++
				continue
			}
			if err := drain(ctx, db, "DESCRIBE "+key); err != nil {
				outcomes["listed, DESCRIBE fails: "+clearError("DESCRIBE "+key, err)]++
				continue
			}
			rows, err := scanCrashTable(ctx, db, key)
			if err != nil {
				// Pinned: a reference killed inside createTable can leave its `__manifest` entry
				// without a dataset (the reference lists it and fails to open it). lancecat
				// shows it as a declared table and refuses to scan it with InvalidTableState.
				t.Logf("round %d: lancecat lists %s, its scan fails: %v", round, key, err)
				code := clearError("scan "+key, err)
				outcomes["listed, scan fails: "+code]++
				if code != catalog.CodeInvalidTableState.String() {
					t.Errorf("round %d: scan of the reference's half-created %s: %v, want InvalidTableState", round, key, err)
				}
				if d, err := strs("SELECT declared FROM information_schema.tables WHERE table_schema = '" + n + "' AND table_name = '" + tbl + "'"); err != nil || !slices.Equal(d, []string{"YES"}) {
					t.Errorf("round %d: information_schema.tables says DECLARED %v (%v) for the reference's half-created %s", round, d, err, key)
				}
				continue
			}
			if len(cols) != 0 && !slices.Equal(cols, []string{"id", "v"}) {
				t.Errorf("round %d: lancecat describes the reference's %s with columns %v", round, key, cols)
			}
			peerRows[key] = rows
		}
	}

	// lancecat's own catalog: exactly what its writers committed, plus in-flight statements
	// whole or not at all.
	match := matchInflight(model, inflight, got)
	if match == nil {
		t.Fatalf("round %d: lancecat's own namespaces and tables are neither the committed state nor it plus any statement in flight %+v\n%s",
			round, inflight, crashDiff(model, got))
	}

	// The reference's writes: committed ones are there, the one in flight whole or not at all.
	for _, w := range writes {
		if w.namespaceDone && !peerListed[w.namespace] {
			t.Errorf("round %d: the reference's committed namespace %s is not listed", round, w.namespace)
		}
		tables := slices.Collect(maps.Keys(w.committed))
		if w.inflightKind == "create" && w.committed[w.inflightTable] == nil {
			tables = append(tables, w.inflightTable)
		}
		for _, key := range tables {
			committed := w.committed[key]
			var maybe []int64
			if w.inflightTable == key {
				maybe = w.inflightIDs
			}
			if !peerListed[key] {
				if committed != nil {
					t.Errorf("round %d: the reference's committed table %s is not listed", round, key)
				} else {
					outcomes["create in flight: invisible"]++
				}
				continue
			}
			rows, ok := peerRows[key]
			if !ok {
				if committed != nil {
					t.Errorf("round %d: the reference's committed table %s does not read", round, key)
				}
				continue // a listed table being created: the typed error was counted above
			}
			want := map[int64]int64{}
			for _, id := range committed {
				want[id] = 2 * id
			}
			withBatch := maps.Clone(want)
			for _, id := range maybe {
				withBatch[id] = 2 * id
			}
			switch {
			case maps.Equal(rows, want) && committed == nil:
				outcomes["create in flight: listed, empty"]++
			case maps.Equal(rows, want):
				if maybe != nil {
					outcomes["batch in flight: not landed"]++
				}
			case maps.Equal(rows, withBatch):
				if committed == nil {
					outcomes["create in flight: landed"]++
				} else {
					outcomes["batch in flight: landed"]++
				}
			default:
				t.Errorf("round %d: lancecat reads the reference's %s as %d rows %v; committed %v, in flight %v", round, key, len(rows), rows, committed, maybe)
			}
		}
	}

	// The reference lists the same tables; a listed table it cannot open is its own debris
	// (counted: lancecat must have answered it with a typed error above, never rows).
	out, err := peer.Run(ctx, t, "crash-writer.mjs", "dump", target.uri)
	if err != nil {
		t.Fatalf("round %d: reference dump: %v", round, err)
	}
	var dump struct {
		Tables map[string]json.RawMessage `json:"tables"`
		Errors []string                   `json:"errors"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		t.Fatalf("round %d: reference dump %.300q: %v", round, out, err)
	}
	refListed := slices.Collect(maps.Keys(dump.Tables))
	for _, e := range dump.Errors {
		key, _, _ := strings.Cut(e, ": ")
		refListed = append(refListed, key)
		outcomes["the reference cannot open a table it lists"]++
		t.Logf("round %d: the reference lists but cannot open %s", round, e)
		if _, read := peerRows[key]; read {
			t.Errorf("round %d: the reference cannot open %s (%s) but lancecat read rows from it", round, key, e)
		}
	}
	lcListed := slices.Collect(maps.Keys(got.tables))
	for k := range peerListed {
		if strings.Contains(k, ".") {
			lcListed = append(lcListed, k)
		}
	}
	slices.Sort(refListed)
	slices.Sort(lcListed)
	if !slices.Equal(refListed, lcListed) {
		t.Errorf("round %d: the reference lists tables %v, lancecat %v", round, refListed, lcListed)
	}

	// lancecat keeps writing: a new namespace and table, and a table in every namespace the
	// reference left listed.
	writeTables := []string{fmt.Sprintf("r%dafter.t", round)}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE SCHEMA r%dafter", round)); err != nil {
		t.Fatalf("round %d: lancecat cannot create a namespace after the reference's kills: %v", round, err)
	}
	match.namespaces[fmt.Sprintf("r%dafter", round)] = true
	for _, n := range slices.Sorted(maps.Keys(peerListed)) {
		if !strings.Contains(n, ".") && strings.HasPrefix(n, fmt.Sprintf("r%dpeer", round)) {
			writeTables = append(writeTables, n+".lc")
		}
	}
	for i, tbl := range writeTables {
		id := int64(980_000_000 + round*1000 + i)
		for _, q := range []string{"CREATE TABLE " + tbl + " (id BIGINT NOT NULL, v BIGINT)", fmt.Sprintf("INSERT INTO %s VALUES (%d, 5)", tbl, id)} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("round %d: lancecat after the reference's kills: %s: %v", round, q, err)
			}
		}
		match.tables[tbl] = map[int64]int64{id: 5}
		if got := crashTableRows(t, ctx, db, tbl); !maps.Equal(got, match.tables[tbl]) {
			t.Fatalf("round %d: lancecat reads %s as %v after writing it", round, tbl, got)
		}
	}

	// Vacuum leaves no directory the catalog does not own, and changes nothing it lists.
	if _, err := db.ExecContext(ctx, "CALL vacuum_catalog('0s')"); err != nil {
		t.Fatalf("round %d: vacuum: %v", round, err)
	}
	if _, _, foreign := foreignDirs(t, ctx, target); len(foreign) > 0 {
		t.Errorf("round %d: after CALL vacuum_catalog('0s') the root holds what the catalog does not own: %v", round, foreign)
	}
	for key, rows := range match.tables {
		if after := crashTableRows(t, ctx, db, key); !maps.Equal(after, rows) {
			t.Fatalf("round %d: vacuum changed the rows of %s", round, key)
		}
	}
	for key, rows := range peerRows {
		after, err := scanCrashTable(ctx, db, key)
		if err != nil || !maps.Equal(after, rows) {
			t.Errorf("round %d: after vacuum lancecat reads the reference's %s as %v (%v), before %v", round, key, after, err, rows)
		}
	}
	return match
}

// drain runs a query and reads every row of it, whatever its columns.
func drain(ctx context.Context, db *sql.DB, q string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanCrashTable reads id and v of a table through the driver (nullV for a NULL v); a
// duplicated id is an error.
func scanCrashTable(ctx context.Context, db *sql.DB, table string) (map[int64]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, v FROM "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id int64
		var v sql.NullInt64
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("id %d read twice in %s", id, table)
		}
		out[id] = nullV
		if v.Valid {
			out[id] = v.Int64
		}
	}
	return out, rows.Err()
}
