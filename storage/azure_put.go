package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"golang.org/x/sync/errgroup"
)

const (
	// DefaultAzureBlockSize is Options.AzureBlockSize when it is 0: objects up to 256 MiB are
	// one Put Blob (one request), larger ones 256 MiB blocks. Azure takes at most 5,000 MiB in
	// one Put Blob and 50,000 blocks per blob (12.2 TiB at this size).
	DefaultAzureBlockSize = 256 << 20
	// maxAzureBlockSize is Azure's limit for one Put Block (4,000 MiB).
	maxAzureBlockSize = 4000 << 20
	// azureCommitAttempts bounds how often a plain Put stages and commits again when another
	// writer's commit of the same key discarded its uncommitted blocks.
	azureCommitAttempts = 3
	// azureStageWorkers bounds the blocks of one upload staged at the same time (the data is
	// already in memory: concurrency costs no copies).
	azureStageWorkers = 4
)

// azurePut writes key through the Azure SDK; ifAbsent makes the write conditional
// (If-None-Match: *). An object of up to blockSize bytes is one Put Blob; a larger one is
// staged in blocks and committed by one Put Block List, so objects over Put Blob's 5,000 MiB
// limit can be written. gocloud's azureblob writer (v0.47.0) panics with a nil pointer whenever
// an upload with a body is refused (its error path clears the pipe reader that Close then
// closes): a conditional create that loses (found by the storage suite on azurite) and any
// upload the service answers with an error (a 503: found by the emulator fault test). So every
// Azure write takes this path.
func azurePut(ctx context.Context, c *container.Client, key, path string, data []byte, ifAbsent bool, blockSize int64) error {
	op := "put"
	if ifAbsent {
		op = "put-if-absent"
	}
	bb := c.NewBlockBlobClient(key)
	var err error
	if int64(len(data)) <= blockSize {
		opts := &blockblob.UploadOptions{HTTPHeaders: azureHeaders(), AccessConditions: azureConditions(ifAbsent)}
		_, err = bb.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), opts)
	} else {
		err = azurePutBlocks(ctx, bb, data, ifAbsent, blockSize)
	}
	if err == nil {
		return nil
	}
	if ifAbsent && (bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) || errors.Is(err, ErrAlreadyExists)) {
		return RedactError(fmt.Errorf("%s %q: %w (%v)", op, path, ErrAlreadyExists, err))
	}
	// Azure SDK errors quote the request URL, which carries the SAS token of a SAS client.
	return wrap(op, path, err)
}

// azurePutBlocks stages data in blocks of blockSize and commits them with one Put Block List:
// the blob appears whole at the commit or not at all, and with ifAbsent the commit is the
// conditional request. Uncommitted blocks are invisible to readers and listings; Azure drops
// them a week after a failed upload, or at the next commit of the key.
//
// Up to azureStageWorkers blocks are staged at once. Block IDs start with a random tag per upload, so two writers staging the same key never
// commit each other's blocks. The first writer to commit discards the other's uncommitted
// blocks, whose commit then fails with InvalidBlockList: under ifAbsent the key now exists
// (ErrAlreadyExists); a plain Put stages and commits again.
func azurePutBlocks(ctx context.Context, bb *blockblob.Client, data []byte, ifAbsent bool, blockSize int64) error {
	for attempt := 1; ; attempt++ {
		var tag [12]byte
		if _, err := rand.Read(tag[:]); err != nil {
			return err
		}
		n := int((int64(len(data)) + blockSize - 1) / blockSize)
		ids := make([]string, n)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(azureStageWorkers)
		for i := range n {
			off := int64(i) * blockSize
			end := min(off+blockSize, int64(len(data)))
			// Every ID of a blob must have the same length: a fixed-width index.
			ids[i] = base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%s-%08d", hex.EncodeToString(tag[:]), i))
			g.Go(func() error {
				if _, err := bb.StageBlock(gctx, ids[i], streaming.NopCloser(bytes.NewReader(data[off:end])), nil); err != nil {
					return fmt.Errorf("stage block %d of %d: %w", i+1, n, err)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if azureBeforeCommit != nil {
			azureBeforeCommit()
		}
		_, err := bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{
			HTTPHeaders: azureHeaders(), AccessConditions: azureConditions(ifAbsent)})
		if err == nil || !bloberror.HasCode(err, bloberror.InvalidBlockList) {
			return err
		}
		if ifAbsent {
			if _, perr := bb.GetProperties(ctx, nil); perr == nil {
				return fmt.Errorf("another writer committed it while its blocks were staged: %w", ErrAlreadyExists)
			}
		}
		if attempt == azureCommitAttempts {
			return err
		}
	}
}

// azureBeforeCommit, when set (by tests), runs between staging the blocks and committing them:
// where another writer's commit of the same key discards them.
var azureBeforeCommit func()

func azureHeaders() *azblobblob.HTTPHeaders {
	contentType := writeOpts.ContentType
	return &azblobblob.HTTPHeaders{BlobContentType: &contentType}
}

// azureConditions is If-None-Match: * for a conditional create, nil otherwise.
func azureConditions(ifAbsent bool) *azblobblob.AccessConditions {
	if !ifAbsent {
		return nil
	}
	etagAny := azcore.ETagAny
	return &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfNoneMatch: &etagAny}}
}
