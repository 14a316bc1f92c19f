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

// azurePut writes key with one Put Blob through the Azure SDK; ifAbsent makes it conditional
// (If-None-Match: *). gocloud's azureblob writer (v0.47.0) panics with a nil pointer whenever an
// upload with a body is refused (its error path clears the pipe reader that Close then closes):
// a conditional create that loses (found by the storage suite on azurite) and any upload the
// service answers with an error (a 503: found by the emulator fault test). So every Azure
// write takes this path.
func azurePut(ctx context.Context, c *container.Client, key, path string, data []byte, ifAbsent bool) error {
	op := "put"
	contentType := writeOpts.ContentType
	opts := &blockblob.UploadOptions{HTTPHeaders: &azblobblob.HTTPHeaders{BlobContentType: &contentType}}
	if ifAbsent {
		op = "put-if-absent"
		etagAny := azcore.ETagAny
		opts.AccessConditions = &azblobblob.AccessConditions{
			ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfNoneMatch: &etagAny},
		}
	}
	_, err := c.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), opts)
	if err == nil {
		return nil
	}
	if ifAbsent && bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
		return RedactError(fmt.Errorf("%s %q: %w (%v)", op, path, ErrAlreadyExists, err))
	}
	// Azure SDK errors quote the request URL, which carries the SAS token of a SAS client.
	return wrap(op, path, err)
}
