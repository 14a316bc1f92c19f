package conformance

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// Issue #10 redaction with secrets the reference wrote: the peer creates a
// namespace whose properties are storage options and signed URLs, and a table
// whose field and schema metadata carry more of them; lancecat adds one more
// through SQL. No display path of lancecat (information_schema, SHOW,
// DESCRIBE, EXPLAIN, errors) prints any of them, what is not secret is still
// shown, and the peer still reads the values unchanged (redaction is display
// only).
func TestPeerWrittenSecretsAreRedacted(t *testing.T) {
	peer.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	const sasURL = "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sr=c&sig=PEERSIG"
	secrets := []string{"PEERSIG", "PEERSAS", "PEERPASS", "PEERFIELDKEY", "PEERCOLSIG", "PEERSCHEMAKEY", "SQLTOKEN"}
	peerScript(ctx, t, "create", map[string]any{
		"uri": root,
		"namespaces": []any{map[string]any{"path": []string{"vault"}, "properties": map[string]string{
			"storage.azure_storage_sas_token": "sv=2022&sig=PEERSAS",
			"source":                          sasURL,
			"endpoint":                        "http://svc:PEERPASS@10.0.0.1:9000",
			"owner":                           "ml-team",
			"comment":                         "copied from " + sasURL,
		}}},
		"tables": []any{map[string]any{"namespace": []string{"vault"}, "name": "t",
			"schema": map[string]any{
				"fields": []any{
					map[string]any{"name": "id", "type": "int64"},
					map[string]any{"name": "url", "type": "utf8", "metadata": map[string]string{
						"comment": "signed: https://b.s3.amazonaws.com/k?X-Amz-Signature=PEERCOLSIG&X-Amz-Expires=60",
						"api_key": "PEERFIELDKEY",
						"unit":    "none",
					}},
				},
				"metadata": map[string]string{"aws_secret_access_key": "PEERSCHEMAKEY"},
			},
			"rows": []any{map[string]any{"id": 1, "url": "u"}},
		}},
	}, nil)

	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "ALTER SCHEMA vault SET PROPERTIES (`storage.aws_session_token` = 'SQLTOKEN')"); err != nil {
		t.Fatal(err)
	}
	text := func(q string) (string, error) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var b strings.Builder
		for rows.Next() {
			cells := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range cells {
				ptrs[i] = &cells[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return "", err
			}
			for _, c := range cells {
				b.WriteString(c.String + " | ")
			}
			b.WriteString("\n")
		}
		return b.String(), rows.Err()
	}
	shown := map[string]string{}
	for _, q := range []string{
		"SHOW CREATE SCHEMA vault",
		"SHOW CREATE TABLE vault.t",
		"SHOW TABLE STATUS FROM vault",
		"SHOW FULL COLUMNS FROM vault.t",
		"DESCRIBE vault.t",
		"SELECT * FROM information_schema.schemata",
		"SELECT * FROM information_schema.tables",
		"SELECT * FROM information_schema.columns",
		"EXPLAIN SELECT * FROM vault.t WHERE url = '" + sasURL + "'",
	} {
		out, err := text(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		shown[q] = out
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s prints the secret %s:\n%s", q, s, out)
			}
		}
	}
	for q, keep := range map[string][]string{
		"SHOW CREATE SCHEMA vault":                  {"'owner' = 'ml-team'", "acct.blob.core.windows.net/c/x?sv=2022-11-02&sr=c&sig=REDACTED", "http://svc:REDACTED@10.0.0.1:9000"},
		"SELECT * FROM information_schema.schemata": {`"owner":"ml-team"`, `"storage.azure_storage_sas_token":"REDACTED"`, `"storage.aws_session_token":"REDACTED"`},
		"SELECT * FROM information_schema.columns":  {`"unit":"none"`, `"api_key":"REDACTED"`, "X-Amz-Expires=60"},
		"SHOW CREATE TABLE vault.t":                 {"'unit' = 'none'", "X-Amz-Signature=REDACTED"},
	} {
		for _, k := range keep {
			if !strings.Contains(shown[q], k) {
				t.Errorf("%s: %q missing:\n%s", q, k, shown[q])
			}
		}
	}
	for _, q := range []string{
		"SELECT * FROM vault.t WHERE nosuch = '" + sasURL + "'",
		"INSERT INTO vault.t (id, url) VALUES ('" + sasURL + "', 'x')",
	} {
		if _, err := text(q); err == nil {
			t.Errorf("%s: no error", q)
		} else {
			for _, s := range secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%s: the error prints the secret %s: %v", q, s, err)
				}
			}
		}
	}

	// Display only: the reference still reads every value as it was written.
	var snap peerSnapshot
	peerScript(ctx, t, "snapshot", map[string]any{"uri": root}, &snap)
	found := false
	for _, ns := range snap.Namespaces {
		if len(ns.Path) == 1 && ns.Path[0] == "vault" {
			found = true
			if ns.Properties["storage.azure_storage_sas_token"] != "sv=2022&sig=PEERSAS" || ns.Properties["storage.aws_session_token"] != "SQLTOKEN" {
				t.Errorf("peer reads vault's properties as %v", ns.Properties)
			}
		}
	}
	if !found {
		t.Errorf("peer does not list namespace vault: %+v", snap.Namespaces)
	}
}
