package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/conformance/peer"
)

// TestKeyMetadataPeer: the metadata lancecat keeps for clients' keys is
// Lance's and survives the reference: after CREATE TABLE with a FOREIGN KEY
// (Lance schema metadata) and ALTER TABLE ... DROP PRIMARY KEY, ADD PRIMARY
// KEY (field metadata, one UpdateConfig commit), the peer opens the table,
// sees the moved unenforced primary key, appends rows, and lancecat still
// reads every row and shows both keys. The advisory lock directory
// (.lancecat/locks) is not a table for the peer.
func TestKeyMetadataPeer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, root, _ := openLoggedCatalog(t, "")
	for _, q := range []string{
		"CREATE TABLE users (id BIGINT NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE posts (id BIGINT NOT NULL, code BIGINT NOT NULL, user_id BIGINT, PRIMARY KEY (id), CONSTRAINT posts_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL) ENGINE=InnoDB CHARSET utf8mb4 COLLATE utf8mb4_bin",
		"INSERT INTO posts VALUES (1, 10, NULL)",
		"ALTER TABLE posts DROP PRIMARY KEY, ADD PRIMARY KEY (code)",
		"SELECT GET_LOCK('m', 0)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var opened struct {
		Schema struct {
			Fields []struct {
				Name     string            `json:"name"`
				Metadata map[string]string `json:"metadata"`
			} `json:"fields"`
			Metadata map[string]string `json:"metadata"`
		} `json:"schema"`
	}
	args := map[string]any{"uri": root, "namespace": []string{}, "name": "posts"}
	if err := peer.Op(ctx, t, "openTable", args, &opened); err != nil {
		t.Fatalf("peer openTable: %v", err)
	}
	pk := map[string]string{}
	for _, f := range opened.Schema.Fields {
		if v, ok := f.Metadata["lance-schema:unenforced-primary-key:position"]; ok {
			pk[f.Name] = v
		}
	}
	if len(pk) != 1 || pk["code"] != "0" {
		t.Errorf("the peer sees primary key fields %v, want code at 0", pk)
	}
	if !strings.Contains(opened.Schema.Metadata["lancecat:foreign_key.posts_user"], `"referenced_table":"users"`) {
		t.Errorf("the peer sees schema metadata %v", opened.Schema.Metadata)
	}
	add := map[string]any{"uri": root, "namespace": []string{}, "name": "posts", "rows": []map[string]any{{"id": 2, "code": 20, "user_id": nil}}}
	if err := peer.Op(ctx, t, "add", add, nil); err != nil {
		t.Fatalf("peer add: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM posts").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows after the peer's append: %d %v", n, err)
	}
	var name, create string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE posts").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(create, "PRIMARY KEY (code)") || !strings.Contains(create, "CONSTRAINT posts_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE SET NULL") {
		t.Errorf("after the peer's append SHOW CREATE TABLE says\n%s", create)
	}
	if got := peerTables(ctx, t, root, []string{}); strings.Join(got, ",") != "posts,users" {
		t.Errorf("the peer lists %v", got)
	}
}
