package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// azurePutIfAbsent creates key with one conditional Put Blob (If-None-Match: *) through the Azure
// SDK. gocloud's azureblob writer (v0.47.0) panics with a nil pointer when a conditional upload
// with a body is refused (its error path clears the pipe reader that Close then closes), which is
// exactly the commit-conflict path: found by running the storage suite against azurite.
func azurePutIfAbsent(ctx context.Context, c *container.Client, key, path string, data []byte) error {
	etagAny := azcore.ETagAny
	contentType := writeOpts.ContentType
	_, err := c.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), &blockblob.UploadOptions{
		HTTPHeaders: &azblobblob.HTTPHeaders{BlobContentType: &contentType},
		AccessConditions: &azblobblob.AccessConditions{
			ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfNoneMatch: &etagAny},
		},
	})
	if err == nil {
		return nil
	}
	if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
		return RedactError(fmt.Errorf("put-if-absent %q: %w (%v)", path, ErrAlreadyExists, err))
	}
	// Azure SDK errors quote the request URL, which carries the SAS token of a SAS client.
	return wrap("put-if-absent", path, err)
}
