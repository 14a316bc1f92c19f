package storage

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/lancecat/lancecat/internal/testservers"
)

// Objects over Options.AzureBlockSize are written as staged blocks committed by one Put Block
// List (Put Blob takes at most 5,000 MiB), on azurite with a 1 KiB block size: the committed
// blob is made of the expected blocks and reads back whole; PutIfAbsent keeps its guarantees
// (an existing object is refused and unchanged; of concurrent creates exactly one wins, and the
// object is the winner's); another writer's commit discarding the staged blocks is handled
// (Put stages again, PutIfAbsent reports ErrAlreadyExists); objects up to the block size stay
// one Put Blob.
func TestAzureBlockUploads(t *testing.T) {
	ctx := context.Background()
	srv := testservers.Azure(t)
	const blockSize = 1 << 10
	s := openCloudTestWith(t, srv, fmt.Sprintf("blocks-%d", cloudPrefixCounter.Add(1)), Options{AzureBlockSize: blockSize})
	bs := s.(*blobStore)
	committedBlocks := func(path string) int {
		t.Helper()
		key, err := bs.key(ctx, "test", path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := bs.azure.NewBlockBlobClient(key).GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
		if err != nil {
			t.Fatalf("block list of %s: %v", path, err)
		}
		if len(l.UncommittedBlocks) != 0 {
			t.Errorf("%s: %d uncommitted blocks left after the upload", path, len(l.UncommittedBlocks))
		}
		return len(l.CommittedBlocks)
	}

	big := randomBytes(10*blockSize+17, 7)
	if err := s.Put(ctx, "data/big.lance", big); err != nil {
		t.Fatal(err)
	}
	if n := committedBlocks("data/big.lance"); n != 11 {
		t.Errorf("a %d-byte Put committed %d blocks, want 11", len(big), n)
	}
	if got := mustRead(t, s, "data/big.lance"); !bytes.Equal(got, big) {
		t.Fatal("the block upload reads back different bytes")
	}
	small := randomBytes(blockSize, 8)
	if err := s.Put(ctx, "data/small.lance", small); err != nil {
		t.Fatal(err)
	}
	if n := committedBlocks("data/small.lance"); n != 0 {
		t.Errorf("a %d-byte Put (not over the block size) committed %d blocks, want one Put Blob (0 blocks)", len(small), n)
	}

	// PutIfAbsent over an existing object: refused, object unchanged.
	if err := s.PutIfAbsent(ctx, "data/big.lance", randomBytes(3*blockSize, 9)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("block PutIfAbsent over an existing object: %v, want ErrAlreadyExists", err)
	}
	if got := mustRead(t, s, "data/big.lance"); !bytes.Equal(got, big) {
		t.Error("a refused block PutIfAbsent changed the object")
	}

	// Concurrent block creates of one key: exactly one wins, the object is the winner's.
	const writers = 4
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = s.PutIfAbsent(ctx, "_versions/race.manifest", raceContent(w, 0)[:5*blockSize])
		}()
	}
	wg.Wait()
	winner := -1
	for w, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("writers %d and %d both created the object", winner, w)
		case err == nil:
			winner = w
		case !errors.Is(err, ErrAlreadyExists):
			t.Errorf("writer %d: %v, want ErrAlreadyExists", w, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer created the object")
	}
	if got := mustRead(t, s, "_versions/race.manifest"); !bytes.Equal(got, raceContent(winner, 0)[:5*blockSize]) {
		t.Error("the object is not the winner's bytes")
	}

	// Another writer commits the key between staging and commit: its Put Block List discards
	// the staged blocks.
	other := func(path string, data []byte) func() {
		return func() {
			azureBeforeCommit = nil // once
			key, err := bs.key(ctx, "test", path)
			if err != nil {
				t.Error(err)
				return
			}
			bb := bs.azure.NewBlockBlobClient(key)
			// Block IDs of one blob have one length: the other writer's are as long as ours.
			id := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("f", 24) + "-00000000"))
			if _, err := bb.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
				t.Errorf("the other writer's block: %v", err)
			}
			if _, err := bb.CommitBlockList(ctx, []string{id}, nil); err != nil {
				t.Errorf("the other writer's commit: %v", err)
			}
		}
	}
	t.Cleanup(func() { azureBeforeCommit = nil })
	azureBeforeCommit = other("data/replaced.lance", []byte("other"))
	mine := randomBytes(4*blockSize, 10)
	if err := s.Put(ctx, "data/replaced.lance", mine); err != nil {
		t.Fatalf("Put after another writer discarded its staged blocks: %v", err)
	}
	if got := mustRead(t, s, "data/replaced.lance"); !bytes.Equal(got, mine) {
		t.Errorf("Put whose first commit lost its blocks reads back %d bytes, not its own", len(got))
	}
	azureBeforeCommit = other("_versions/lost.manifest", []byte("other"))
	if err := s.PutIfAbsent(ctx, "_versions/lost.manifest", mine); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("PutIfAbsent whose key another writer created meanwhile: %v, want ErrAlreadyExists", err)
	}
	if got := mustRead(t, s, "_versions/lost.manifest"); string(got) != "other" {
		t.Errorf("the other writer's object became %d other bytes", len(got))
	}

	// Sizes Azure cannot take are refused at Open.
	for _, size := range []int64{-1, maxAzureBlockSize + 1} {
		if _, err := Open(ctx, srv.URI("x"), Options{StorageOptions: srv.StorageOptions, AzureBlockSize: size}); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("AzureBlockSize %d: %v, want ErrInvalidOption", size, err)
		}
	}
}
