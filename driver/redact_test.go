package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	lancecat "github.com/lancecat/lancecat/driver"
	"github.com/lancecat/lancecat/manifest"
)

// Issue #10 finding 5 with its exact inputs: secrets in a DSN's query and
// in an endpoint's user info never appear in errors or in a printed Config.
func TestSecretsAreRedacted(t *testing.T) {
	const secret = "AKIAsecretVALUE"
	for _, dsn := range []string{
		"s3://bkt/p?storage.aws_secret_access_key=" + secret + "&x=%zz",
		"s3://bkt/p?storage.aws_secret_access_key=" + secret + "&storage.aws_access_key_id=k&storage.endpoint=http://user:" + secret + "@127.0.0.1:1",
		"s3://user:" + secret + "@bkt/p",
		"az://c/p?storage.azure_storage_sas_token=sv%3D2022%26sig%3D" + secret + "&bogus=1",
	} {
		db, err := sql.Open("lancecat", dsn)
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			t.Errorf("%s: no error", dsn)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%+v", err), secret) {
			t.Errorf("%s: the secret is in the error: %v", dsn, err)
		}
	}
	cfg := lancecat.Config{URI: "s3://bkt/p", StorageOptions: map[string]string{"aws_secret_access_key": secret, "endpoint": "http://u:" + secret + "@h"}}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%+v", cfg)} {
		if strings.Contains(s, secret) {
			t.Errorf("printed Config holds the secret: %s", s)
		}
	}
}

// Issue #10 (redaction wherever a value is displayed): secrets kept in a catalog — storage
// options saved as namespace or table properties, SAS URLs and URLs with passwords in
// properties and in table and column comments, filter literals — are not printed by
// information_schema (schemata, tables, columns), SHOW CREATE SCHEMA/TABLE, SHOW TABLE STATUS,
// SHOW FULL COLUMNS, DESCRIBE, EXPLAIN or an error message; the properties themselves are kept
// as they are (only their display is redacted), and what is not secret is still shown.
func TestShowAndExplainRedactSecrets(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	db, err := sql.Open("lancecat", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const sasURL = "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sig=SECRETSIG"
	for _, stmt := range []string{
		"CREATE SCHEMA s COMMENT 'copied from " + sasURL + "' WITH PROPERTIES (`storage.azure_storage_sas_token` = 'sv=2022&sig=SECRETTOKEN', source = '" + sasURL + "', owner = 'ml-team')",
		"CREATE TABLE s.t (id BIGINT, name TEXT COMMENT 'mirror of http://svc:COLPASS@10.0.0.1/x?token=COLTOKEN', src TEXT DEFAULT 'https://b.s3.amazonaws.com/k?X-Amz-Signature=DEFAULTSIG') COMMENT 'see " + sasURL + "'",
		"ALTER SCHEMA s SET PROPERTIES (api_key = 'SQLAPIKEY', ClientSecret = 'SQLCLIENTSECRET', author = 'alice')",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	c, err := manifest.OpenCatalog(ctx, root, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.AlterTableProperties(ctx, catalog.Ident{"s", "t"}, map[string]string{
		"aws_secret_access_key": "SECRETKEY", "endpoint": "http://user:SECRETPASS@127.0.0.1:9000", "tier": "gold"}, nil); err != nil {
		t.Fatal(err)
	}

	secrets := []string{"SECRETSIG", "SECRETTOKEN", "SECRETKEY", "SECRETPASS", "COLPASS", "COLTOKEN", "SQLAPIKEY", "SQLCLIENTSECRET", "DEFAULTSIG"}
	for _, q := range []string{
		"SHOW CREATE SCHEMA s",
		"SHOW CREATE TABLE s.t",
		"SHOW TABLE STATUS FROM s",
		"SHOW FULL COLUMNS FROM s.t",
		"DESCRIBE s.t",
		"SELECT * FROM information_schema.schemata WHERE schema_name = 's'",
		"SELECT * FROM information_schema.tables WHERE table_schema = 's'",
		"SELECT * FROM information_schema.columns WHERE table_schema = 's'",
		"EXPLAIN SELECT * FROM s.t WHERE name = '" + sasURL + "'",
		"EXPLAIN SELECT table_name FROM information_schema.tables WHERE table_comment = '" + sasURL + "'",
	} {
		text := queryText(t, db, q)
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s prints the secret %s:\n%s", q, s, text)
			}
		}
		// What is not secret is still shown.
		for _, keep := range []string{"acct.blob.core.windows.net"} {
			if !strings.Contains(text, keep) && !strings.HasPrefix(q, "SHOW TABLE STATUS") && !strings.Contains(q, "COLUMNS") && !strings.HasPrefix(q, "DESCRIBE") && !strings.Contains(q, "information_schema.columns") {
				t.Errorf("%s lost %q:\n%s", q, keep, text)
			}
		}
		if (strings.HasPrefix(q, "SHOW CREATE") || strings.HasPrefix(q, "SELECT")) && !strings.Contains(text, "REDACTED") {
			t.Errorf("%s shows no REDACTED marker:\n%s", q, text)
		}
	}
	if text := queryText(t, db, "SHOW CREATE SCHEMA s"); !strings.Contains(text, "'owner' = 'ml-team'") {
		t.Errorf("SHOW CREATE SCHEMA lost a plain property:\n%s", text)
	}
	if text := queryText(t, db, "SHOW CREATE TABLE s.t"); !strings.Contains(text, "'tier' = 'gold'") {
		t.Errorf("SHOW CREATE TABLE lost a plain property:\n%s", text)
	}
	for q, keep := range map[string][]string{
		"SELECT properties FROM information_schema.schemata WHERE schema_name = 's'": {`"owner":"ml-team"`, `"author":"alice"`, `"api_key":"REDACTED"`},
		"SELECT properties FROM information_schema.tables WHERE table_schema = 's'":  {`"tier":"gold"`, `"endpoint":"http://user:REDACTED@127.0.0.1:9000"`},
		"SHOW FULL COLUMNS FROM s.t": {"http://svc:REDACTED@10.0.0.1/x?token=REDACTED"},
	} {
		text := queryText(t, db, q)
		for _, k := range keep {
			if !strings.Contains(text, k) {
				t.Errorf("%s: %q missing:\n%s", q, k, text)
			}
		}
	}
	// Error messages that echo a statement's literals or a property.
	for _, q := range []string{
		"SELECT * FROM s.t WHERE nosuch = '" + sasURL + "'",
		"ALTER SCHEMA nosuch SET PROPERTIES (source = '" + sasURL + "')",
		"INSERT INTO s.t (id, name) VALUES ('http://u:SECRETPASS@h/?sig=SECRETSIG', 'x')",
	} {
		_, err := db.QueryContext(ctx, q)
		if err == nil {
			t.Errorf("%s: no error", q)
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: the error prints the secret %s: %v", q, s, err)
			}
		}
	}
	// The catalog keeps the values: redaction is display only.
	info, err := c.DescribeNamespace(ctx, catalog.Ident{"s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Properties["storage.azure_storage_sas_token"]; got != "sv=2022&sig=SECRETTOKEN" {
		t.Errorf("stored property changed to %q", got)
	}
}

// queryText runs q and joins every cell of every row.
func queryText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		cells := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range cells {
			dest[i] = &cells[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, c := range cells {
			b.WriteString(c.String + " | ")
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
