package manifest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/internal/testservers"
	"github.com/lancecat/lancecat/storage"
)

// writeMethod is the HTTP method of an object upload on each server's protocol (gocloud's GCS
// client uploads through the JSON API's POST .../o?uploadType=multipart&name=...).
var writeMethod = map[string]string{"s3": "PUT", "az": "PUT", "gs": "POST"}

// TestCommitUnderHTTPFaultsOnObjectStores injects faults between lancecat and real S3, Azure
// Blob and GCS protocol servers with an HTTP proxy (SDK retries off: client_max_retries=0), at
// the catalog's commit (the conditional PUT of the next `__manifest` version) and at its reads:
//   - the PUT of the staged `__manifest` data file or of the version fails (503): the
//     statement fails, nothing of it is left on the store
//     (staged data and index files removed), and the same statement succeeds once the store
//     is healthy;
//   - the version PUT lands but its answer is lost (connection reset): success is reported only
//     if the table is there, a failure only if it is not, unless it says the outcome is unknown
//     (ErrCommitOutcomeUnknown);
//   - the version PUT loses a race (412 / Azure 409): the catalog re-reads and commits again;
//     the table exists exactly once;
//   - reads of `__manifest` fail (connection reset): the listing fails with ServiceUnavailable
//     (as does the failed commit: the store, not the request, is at fault) and works once the
//     store is healthy.
//
// No error text carries a secret of the server's storage options (keys, SAS signatures).
// "az-blocks" runs the same with objects written as staged blocks (Options.AzureBlockSize).
func TestCommitUnderHTTPFaultsOnObjectStores(t *testing.T) {
	servers := append(objectStoreServers[:len(objectStoreServers):len(objectStoreServers)], []struct {
		name  string
		start func(testing.TB) *testservers.Server
	}{{"az-sas", func(t testing.TB) *testservers.Server {
		// Azure through an account SAS token: the SDK's errors quote request URLs, and those
		// carry the token's signature.
		az := *testservers.Azure(t)
		az.StorageOptions = az.AzureSASOptions(t)
		return &az
	}}, {"az-blocks", testservers.Azure}}...)
	for _, server := range servers {
		t.Run(server.name, func(t *testing.T) {
			base := server.start(t)
			srv, proxy := base.Proxied(t, "0")
			ctx := context.Background()
			prefix := fmt.Sprintf("faults-%d", objPrefix.Add(1))
			// az-blocks: every object over 512 bytes is staged in blocks, and the faults on
			// the version file hit its commit, the conditional Put Block List.
			var so storage.Options
			versionPut := versionPutRule(srv.Name)
			if server.name == "az-blocks" {
				so.AzureBlockSize = 512
				versionPut.QueryContains = "comp=blocklist"
			}
			c := openOnServerWith(t, srv, prefix, so)
			if err := c.CreateNamespace(ctx, catalog.Ident{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			var secrets []string
			for k, v := range srv.StorageOptions {
				if storage.IsSecretOption(k) && v != "" {
					secrets = append(secrets, v)
					if q, err := url.ParseQuery(v); err == nil && q.Get("sig") != "" {
						secrets = append(secrets, q.Get("sig"), url.QueryEscape(q.Get("sig")))
					}
				}
			}
			checkErr := func(what string, err error) {
				t.Helper()
				msg := fmt.Sprintf("%v | %+v", err, err)
				for _, s := range secrets {
					if strings.Contains(msg, s) {
						t.Errorf("%s: the error carries a secret (%q): %s", what, s, msg)
					}
				}
				for rest := msg; strings.Contains(rest, "sig="); {
					_, rest, _ = strings.Cut(rest, "sig=")
					if !strings.HasPrefix(rest, storage.Redacted) {
						t.Errorf("%s: the error carries a signature: %s", what, msg)
						break
					}
				}
				if _, ok := catalog.CodeOf(err); !ok {
					t.Errorf("%s: untyped error %v", what, err)
				}
			}
			create := func(name string) error {
				_, err := c.CreateTable(ctx, catalog.Ident{"ns", name}, eventsSchema(), catalog.CreateTableOptions{})
				return err
			}
			listed := func() []string {
				t.Helper()
				fresh := openOnServer(t, base, prefix) // not through the proxy
				return names(t)(fresh.ListTables(ctx, catalog.Ident{"ns"}, catalog.ListTablesOptions{}))
			}
			objects := func() []string {
				t.Helper()
				return storePaths(t, openOnServer(t, base, prefix).Store)
			}

			// 1. A PUT of the commit fails (the staged `__manifest` data file, or the version
			// file itself): no partial change; the same statement succeeds once the store is
			// healthy.
			dataPut := testservers.FaultRule{Method: writeMethod[srv.Name], PathContains: catalog.ManifestDir + "/data/"}
			versionPut.Fault, dataPut.Fault = testservers.Status503Before, testservers.Status503Before
			for _, rule := range []testservers.FaultRule{dataPut, versionPut} {
				before := objects()
				proxy.Set(rule)
				err := create("t1")
				fired := proxy.Fired()
				if len(fired) == 0 {
					t.Fatalf("the fault on %s did not fire: the commit's PUT was not seen", rule.PathContains)
				}
				if err == nil {
					t.Fatalf("CreateTable reported success though every PUT of %s failed (%v)", rule.PathContains, fired)
				}
				checkErr("failed commit", err)
				if !errors.Is(err, catalog.ErrServiceUnavailable) {
					t.Errorf("a commit the store refused with 503 fails with %v, want ServiceUnavailable", err)
				}
				if got := listed(); slices.Contains(got, "t1") {
					t.Fatalf("failed CreateTable (%v) left t1 listed: %v", err, got)
				}
				if after := objects(); !errors.Is(err, catalog.ErrCommitOutcomeUnknown) && !slices.Equal(after, before) {
					t.Errorf("failed CreateTable (%v, fault on %s) changed the store: added %v, removed %v",
						err, rule.PathContains, setMinus(after, before), setMinus(before, after))
				}
			}
			proxy.Set()
			if err := create("t1"); err != nil {
				t.Fatalf("retry after the store recovered: %v", err)
			}

			// 2. The version PUT lands, its answer is lost.
			versionPut.Fault, versionPut.Times = testservers.ResetAfter, 1
			proxy.Set(versionPut)
			err := create("t2")
			if len(proxy.Fired()) == 0 {
				t.Fatal("the lost-acknowledgement fault did not fire")
			}
			landed := slices.Contains(listed(), "t2")
			unknown := errors.Is(err, catalog.ErrCommitOutcomeUnknown)
			switch {
			case err == nil && !landed:
				t.Fatal("success reported for a CreateTable that is not in the catalog")
			case err != nil && landed && !unknown:
				t.Fatalf("failure reported (%v) for a CreateTable that landed", err)
			}
			if err != nil {
				checkErr("lost acknowledgement", err)
			}
			t.Logf("lost acknowledgement: err=%v landed=%v", err, landed)

			// 3. The version PUT loses a race: the catalog commits again.
			versionPut.Fault, versionPut.Times = testservers.Status412Before, 1
			proxy.Set(versionPut)
			if err := create("t3"); err != nil {
				t.Fatalf("CreateTable after a lost conditional-PUT race: %v", err)
			}
			if len(proxy.Fired()) == 0 {
				t.Fatal("the race fault did not fire")
			}
			if got := listed(); !slices.Contains(got, "t3") {
				t.Fatalf("t3 not listed after the retried commit: %v", got)
			}

			// 4. Reads of `__manifest` fail with a network error, then recover.
			reader := openOnServerWith(t, srv, prefix, so)
			proxy.Set(testservers.FaultRule{Method: "GET", PathContains: catalog.ManifestDir + "/", Fault: testservers.ResetBefore})
			_, err = reader.ListTables(ctx, catalog.Ident{"ns"}, catalog.ListTablesOptions{})
			if len(proxy.Fired()) == 0 {
				t.Fatal("the read fault did not fire")
			}
			if err == nil {
				t.Fatal("ListTables succeeded while every read of __manifest failed")
			}
			checkErr("failed read", err)
			if !errors.Is(err, catalog.ErrServiceUnavailable) {
				t.Errorf("a read the network dropped fails with %v, want ServiceUnavailable", err)
			}
			proxy.Set()
			got := names(t)(reader.ListTables(ctx, catalog.Ident{"ns"}, catalog.ListTablesOptions{}))
			if !slices.Contains(got, "t1") || !slices.Contains(got, "t3") {
				t.Fatalf("after the store recovered the reader lists %v", got)
			}
		})
	}
}

// versionPutRule selects the upload of a `__manifest` version file on server name.
func versionPutRule(name string) testservers.FaultRule {
	return testservers.FaultRule{Method: writeMethod[name], PathContains: catalog.ManifestDir + "/_versions/"}
}
