package manifest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/conformance/peer"
	"github.com/lancecat/lancecat/lance/dataset"
)

func dirBytes(t *testing.T, c *Catalog, prefix string) (files int, bytes int64) {
	t.Helper()
	objs, err := c.Store.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		files++
		bytes += o.Size
	}
	return files, bytes
}

// TestVacuumFreesOldManifestVersions: after many DDL commits, vacuum with a
// zero-length window (Now in the future) keeps only what the latest version
// needs, the catalog still answers, and the peer still lists it.
func TestVacuumFreesOldManifestVersions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	c := open(t, root)
	for i := 0; i < 20; i++ {
		if err := c.CreateNamespace(ctx, catalog.Ident{fmt.Sprintf("ns%02d", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	filesBefore, bytesBefore := dirBytes(t, c, catalog.ManifestDir+"/")
	// Incremental commits add tier-merge versions: count what is there.
	versionsBefore, err := dataset.ListVersions(ctx, c.Store, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}

	// A window that has not passed frees nothing.
	rep, err := c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 0 {
		t.Fatalf("vacuum inside the retention window removed %d files", rep.FilesRemoved)
	}

	rep, err = c.Vacuum(ctx, catalog.VacuumOptions{Retention: time.Minute, Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	filesAfter, bytesAfter := dirBytes(t, c, catalog.ManifestDir+"/")
	if rep.FilesRemoved == 0 || rep.BytesRemoved == 0 || rep.VersionsRemoved != len(versionsBefore)-1 {
		t.Fatalf("report %+v", rep)
	}
	if int64(filesBefore-filesAfter) != int64(rep.FilesRemoved) || bytesBefore-bytesAfter != rep.BytesRemoved {
		t.Fatalf("report %+v does not match the store: %d->%d files, %d->%d bytes", rep, filesBefore, filesAfter, bytesBefore, bytesAfter)
	}
	versions, err := dataset.ListVersions(ctx, c.Store, catalog.ManifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 || rep.OldestKept != versions[0].Version {
		t.Fatalf("versions left %v, oldest kept %d", versions, rep.OldestKept)
	}
	// Only the latest version's data files are left under data/.
	objs, _ := c.Store.List(ctx, catalog.ManifestDir+"/data/")
	latest, err := dataset.Open(ctx, c.Store, catalog.ManifestDir, dataset.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(latest.Fragments()) {
		t.Fatalf("data files left: %v, the latest version has %d fragments", objs, len(latest.Fragments()))
	}
	page, err := c.ListNamespaces(ctx, nil, catalog.ListOptions{})
	if err != nil || len(page.Names) != 20 {
		t.Fatalf("after vacuum: %v %v", page.Names, err)
	}
	if err := c.CreateNamespace(ctx, catalog.Ident{"after"}, nil); err != nil {
		t.Fatal(err)
	}
	// The reference must still read the vacuumed catalog; a subtest so that a missing peer
	// shows as a skip (or, under testenv.Strict, a failure) instead of passing silently.
	t.Run("peer", func(t *testing.T) {
		peer.Require(t)
		nss, _ := peerList(ctx, t, root, nil)
		if len(nss) != 21 || !strings.HasPrefix(nss[0], "after") {
			t.Fatalf("peer after vacuum lists %v", nss)
		}
	})
}
