package vector

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lancecat/lancecat/lance/dataset"
	lancefile "github.com/lancecat/lancecat/lance/file"
)

var fixtureTypes = []string{"ivf_pq", "ivf_hnsw_sq", "ivf_flat", "ivf_hnsw_pq"}

func readFixture(t testing.TB, typ string) (idx, aux []byte) {
	t.Helper()
	var err error
	if idx, err = os.ReadFile(filepath.Join("testdata", typ+".index.idx")); err != nil {
		t.Fatal(err)
	}
	if aux, err = os.ReadFile(filepath.Join("testdata", typ+".auxiliary.idx")); err != nil {
		t.Fatal(err)
	}
	return idx, aux
}

// searchFiles opens a segment from the two files' bytes and searches every
// partition.
func searchFiles(ctx context.Context, idxB, auxB []byte) (int, error) {
	idx, err := lancefile.Open(ctx, lancefile.BytesSource(idxB))
	if err != nil {
		return 0, err
	}
	aux, err := lancefile.Open(ctx, lancefile.BytesSource(auxB))
	if err != nil {
		return 0, err
	}
	s, err := newSegment(ctx, &dataset.IndexMetadata{Name: "fuzz"}, idx, aux)
	if err != nil {
		return 0, err
	}
	key := make([]float32, s.dim)
	for i := range key {
		key[i] = float32(i%5) - 2
	}
	lf := &liveFilter{all: true}
	hits, _, err := s.search(ctx, key, Query{Vector: key, K: 5, NProbes: s.ivf.numPartitions()}, 5, lf)
	return len(hits), err
}

// TestFixtureSegments: each peer-written segment opens and answers k rows.
func TestFixtureSegments(t *testing.T) {
	for _, typ := range fixtureTypes {
		idx, aux := readFixture(t, typ)
		n, err := searchFiles(context.Background(), idx, aux)
		if err != nil || n < 5 { // 5 per probed partition
			t.Errorf("%s: %d hits, %v", typ, n, err)
		}
	}
}

// FuzzSegmentFiles: hostile index files fail with an error, never a panic
// or an allocation past the file's size.
func FuzzSegmentFiles(f *testing.F) {
	for i, typ := range fixtureTypes {
		idx, aux := readFixture(f, typ)
		f.Add(idx, aux)
		_ = i
	}
	f.Fuzz(func(t *testing.T, idx, aux []byte) {
		if len(idx)+len(aux) > 1<<20 {
			return
		}
		// any error is acceptable; the point is no panic
		_, _ = searchFiles(context.Background(), idx, aux)
	})
}
