package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/manifest"
	"github.com/lancecat/lancecat/planner/exec"
	"github.com/lancecat/lancecat/sqlparse"
)

// FuzzJoinPlanner binds and plans join queries with an arbitrary
// condition and select list over fixed tables (NULL and duplicate keys).
// Every input must either fail with a typed error or answer, and when the
// three plans of the same inner join answer (ON, so a hash join when the
// condition has keys; the condition in WHERE over a comma join, pushed by
// the rules; NOT NOT around it, which no rule splits into keys, so a
// nested loop) their row counts agree, and a LEFT JOIN has at least one
// row per left row.
func FuzzJoinPlanner(f *testing.F) {
	for _, s := range [][2]string{
		{"c.id = o.id", "c.name, o.oid"},
		{"c.id = o.id AND o.amount > 5", "*"},
		{"o.id = c.id", "c.*"},
		{"c.id < o.id", "COUNT(*)"},
		{"c.name = 'ann' OR o.oid = 12", "o.*, c.id"},
		{"c.id = o.id AND c.city = o.amount", "id"},
		{"c.id + 1 = o.id", "c.id, o.id"},
		{"c.id <=> o.id", "x.y"},
		{"NULL", "1"},
		{"c.id = o.id AND c.id IN (1, 2)", "SUM(o.amount)"},
		{"c.id <=> o.id AND c.name <> 'x'", "c.name, o.oid"},
		{"o.amount > 5", "*"},
		{"c.id = o.id AND o.amount IN (SELECT id FROM c)", "c.name, o.oid"},
		{"c.id = o.id AND c.id NOT IN (SELECT id FROM o WHERE id IS NOT NULL)", "COUNT(*)"},
		{"c.id < o.id AND EXISTS (SELECT 1 FROM o WHERE amount > 8) AND c.city IN (SELECT city FROM c WHERE id > 2)", "*"},
	} {
		f.Add(s[0], s[1])
	}
	uri := "memory://planner-join-fuzz/lake"
	lc, err := manifest.OpenCatalog(context.Background(), uri, manifest.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { lc.Close() })
	sess := NewSession(lc.Catalog, Options{Store: lc.Store, JoinMemory: 1 << 20})
	spillDir := f.TempDir()
	fx := &fixture{s: sess}
	setup := []string{
		`CREATE TABLE c (id BIGINT, name VARCHAR(20), city VARCHAR(20))`,
		`INSERT INTO c VALUES (1, 'ann', 'oslo'), (2, 'bob', 'rome'), (3, 'cid', 'oslo'), (NULL, 'nul', 'rome'), (4, 'ann', 'lima'), (1, 'dup', 'oslo')`,
		`CREATE TABLE o (oid BIGINT, id BIGINT, amount BIGINT)`,
		`INSERT INTO o VALUES (10, 1, 5), (11, 1, 7), (12, 2, 9), (13, NULL, 1), (14, 9, 2)`,
	}
	for _, q := range setup {
		stmts, err := sqlparse.Parse(q)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := sess.Exec(context.Background(), stmts[0]); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, cond, items string) {
		if len(cond) > 200 || len(items) > 200 || strings.ContainsAny(cond+items, ";") {
			return
		}
		fx.t = t
		run := func(q string) (int, bool) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			stmts, err := sqlparse.Parse(q)
			if err != nil || len(stmts) != 1 {
				return 0, false
			}
			if _, ok := stmts[0].(*sqlparse.Select); !ok {
				return 0, false
			}
			res, err := sess.Exec(ctx, stmts[0])
			if err == nil {
				err = res.Collect()
			}
			if err != nil {
				var ce *catalog.Error
				var pe *sqlparse.Error
				var be *exec.BudgetError
				if !errors.As(err, &ce) && !errors.As(err, &pe) && !errors.As(err, &be) && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("%s: untyped error %T: %v", q, err, err)
				}
				return 0, false
			}
			return len(res.Rows), true
		}
		run(fmt.Sprintf("SELECT %s FROM c JOIN o ON %s", items, cond))
		n1, ok1 := run(fmt.Sprintf("SELECT c.name, o.oid FROM c JOIN o ON %s", cond))
		n2, ok2 := run(fmt.Sprintf("SELECT c.name, o.oid FROM c, o WHERE %s", cond))
		n3, ok3 := run(fmt.Sprintf("SELECT c.name, o.oid FROM c JOIN o ON NOT NOT (%s)", cond))
		if ok1 && ok2 && n1 != n2 || ok1 && ok3 && n1 != n3 {
			t.Fatalf("ON %s: %d rows (ON), %d (WHERE), %d (nested loop)", cond, n1, n2, n3)
		}
		nl, okl := run(fmt.Sprintf("SELECT c.name FROM c LEFT JOIN o ON %s", cond))
		if okl && nl < 6 {
			t.Fatalf("LEFT JOIN ON %s: %d rows, fewer than the 6 left rows", cond, nl)
		}
		// FULL = LEFT + RIGHT - INNER, hashed or as a nested loop.
		nr, okr := run(fmt.Sprintf("SELECT c.name FROM c RIGHT JOIN o ON %s", cond))
		nf, okf := run(fmt.Sprintf("SELECT c.name, o.oid FROM c FULL JOIN o ON %s", cond))
		nf2, okf2 := run(fmt.Sprintf("SELECT c.name, o.oid FROM c FULL JOIN o ON NOT NOT (%s)", cond))
		if ok1 && okl && okr && okf && nf != nl+nr-n1 || okf && okf2 && nf != nf2 {
			t.Fatalf("FULL JOIN ON %s: %d rows (hash), %d (nested loop), want LEFT %d + RIGHT %d - INNER %d", cond, nf, nf2, nl, nr, n1)
		}
		// A hash join spilled to disk (the 5 rows of o pass 400 bytes)
		// gives the in-memory join's rows.
		if ok1 {
			sess.opts.JoinMemory, sess.opts.SpillDir = 400, spillDir
			ns, oks := func() (int, bool) {
				defer func() { sess.opts.JoinMemory, sess.opts.SpillDir = 1<<20, "" }()
				return run(fmt.Sprintf("SELECT c.name, o.oid FROM c JOIN o ON %s", cond))
			}()
			if oks && ns != n1 {
				t.Fatalf("ON %s: %d rows spilled, %d in memory", cond, ns, n1)
			}
		}
	})
}
