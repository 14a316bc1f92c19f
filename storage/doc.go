// Package storage is the object-store access layer under every Lance read and
// write in lancecat: whole-object and ranged reads, listings, atomic puts, the
// atomic create-if-absent that Lance commits rely on, and deletes, over a local
// directory, an in-process memory store, Amazon S3 (and S3-compatible servers),
// Google Cloud Storage and Azure Blob Storage.
//
// # Paths
//
// A Store is rooted at a URI. Every path given to a Store is relative to that
// root, slash-separated, without a leading or trailing slash, without empty,
// "." or ".." segments and without NUL bytes; anything else fails with an error
// wrapping ErrInvalidPath. Prefixes (List, DeletePrefix) and directories
// (ListDir) are directory-shaped: "" is the root, and "a/b" and "a/b/" both
// mean everything below the directory a/b (never a/bc).
//
// # URIs accepted by Open
//
//	/abs/dir, rel/dir, file:///abs/dir   local disk (a missing directory is fine; it is created on first write)
//	memory://name[/prefix]               in-process store shared by every Open of name in this process
//	memory://                            a fresh store with a generated unique name (see Store.URI)
//	s3://bucket[/prefix]                 Amazon S3 or an S3-compatible server
//	gs://bucket[/prefix]                 Google Cloud Storage
//	az://container[/prefix]              Azure Blob Storage
//
// # Why local disk does not go through gocloud's fileblob
//
// Lance commits a table version by creating its manifest file only if it does
// not exist yet; two writers racing for the same version must see exactly one
// winner, even when they are different processes (lancecat and the Rust
// implementation, or two lancecat programs). gocloud.dev/blob/fileblob checks
// IfNotExist with a stat and a rename under an in-process mutex, which another
// process can interleave with, so two committers could both "win". fileblob also
// writes a "<name>.attrs" sidecar next to every object unless told not to, and
// foreign files inside a Lance directory are a compatibility bug. So the local
// store is written directly on the operating system:
//
//   - Put writes a temporary file in the destination directory, fsyncs it and
//     renames it over the destination, so a reader sees the old or the new
//     content, never a torn object.
//   - PutIfAbsent writes and fsyncs a temporary file, then hard-links it to the
//     destination name. link(2) fails with EEXIST atomically across processes
//     when the destination exists (the same mechanism Rust's object_store uses
//     for its local rename-if-not-exists). The temporary file is removed on
//     every path.
//   - Temporary files are named ".<name>.<random>.lancecat-tmp": the leading dot
//     and the suffix keep them out of what Rust Lance parses in a listing (its
//     manifest scan only accepts names ending in "manifest" or starting with
//     "d", its table scan names ending in ".lance"), and List/ListDir here skip
//     them.
//
// # Durability
//
// Options.Durability (DurabilityFull by default) decides when the local store
// fsyncs. With DurabilityFull, Put and PutIfAbsent are durable when they
// return (file, its directory, and directories created for it). A commit
// that writes many files uses the Syncer capability instead: PutDeferred
// writes each file without a sync, and PutIfAbsentAfterSync fsyncs all of
// them, their directories and the new object's content in one parallel round
// before linking the new object, then syncs its directory: the files a
// version refers to are durable before the version exists. On Linux 5.8 and
// later a round of at least 512 paths (a transaction creating hundreds of
// tables) is made durable by one syncfs(2) of the file system instead of
// one fsync per path, falling back to fsync for paths on another device and
// after any syncfs error (fsSyncers argues why this is as safe). DurabilityNone
// never fsyncs (the reference implementation's behaviour); object stores need
// no sync and do not implement Syncer.
//
// Object stores get atomic replacement from the service itself. PutIfAbsent on
// them is a conditional write (If-None-Match: * on S3, DoesNotExist on GCS,
// If-None-Match on Azure); a failed precondition maps to ErrAlreadyExists.
//
// # Storage options
//
// Options.StorageOptions takes the same keys as LanceDB's storageOptions (the
// key names of Rust's object_store), so one option map configures both
// implementations. Keys are matched case-insensitively. Unknown keys are
// ignored, as LanceDB does, so that options meant for the other implementation
// do not break Open.
//
// Every object store (s3://, gs://, az://):
//
//	key                                                            meaning
//	client_max_retries                                             how many times the SDK retries a failed request (a 5xx, a
//	                                                                 dropped connection) before the error reaches lancecat;
//	                                                                 default: the SDK's own (S3: 2, Azure: 3, GCS: until the
//	                                                                 context ends for idempotent calls). "0" fails at once.
//	                                                                 On GCS a count above 0 does not bound uploads, which the
//	                                                                 client retries until the context ends; "0" does.
//
// S3 (s3://):
//
//	key (aliases)                                                  meaning
//	aws_access_key_id (access_key_id)                              static access key id
//	aws_secret_access_key (secret_access_key)                      static secret key
//	aws_session_token (session_token, aws_token, token)            session token for temporary credentials
//	aws_region (region, aws_default_region, default_region)        region; default "us-east-1" when an endpoint is given,
//	                                                                 otherwise the AWS SDK's environment/config chain, then "us-east-1"
//	aws_endpoint (aws_endpoint_url, endpoint, endpoint_url)       endpoint URL of an S3-compatible server
//	allow_http (aws_allow_http)                                    "true" permits an http:// endpoint (refused otherwise)
//	aws_virtual_hosted_style_request (virtual_hosted_style_request) "true": bucket in the host name; "false": bucket in the path
//	force_path_style (aws_force_path_style, use_path_style)        "true": bucket in the path (inverse of the above)
//	                                                                 default: path style when an endpoint is given (as object_store does),
//	                                                                 virtual-hosted style against AWS itself
//	aws_skip_signature (skip_signature)                            "true": anonymous, unsigned requests
//	aws_request_checksum_calculation                               "when_supported" or "when_required"; default "when_required" when an
//	                                                                 endpoint is given (many S3-compatible servers reject the SDK's
//	                                                                 streaming checksums), the SDK default otherwise
//
// Without static keys the AWS SDK's default credential chain (environment,
// shared config files, instance roles) is used.
//
// Google Cloud Storage (gs://):
//
//	key (aliases)                                                  meaning
//	google_service_account (service_account, google_service_account_path,
//	  service_account_path, google_application_credentials)        path of a service-account JSON key file
//	google_service_account_key (service_account_key)               the service-account JSON key itself
//	google_skip_signature (skip_signature)                         "true": anonymous requests
//	google_endpoint (endpoint)                                     API endpoint, e.g. an emulator's http://host:port/storage/v1/
//
// Without a key, Application Default Credentials are used (and the
// STORAGE_EMULATOR_HOST environment variable is honoured by the GCS client).
//
// Azure Blob Storage (az://):
//
//	key (aliases)                                                  meaning
//	azure_storage_account_name (account_name)                      storage account (required)
//	azure_storage_account_key (account_key, access_key,
//	  azure_storage_access_key, master_key, azure_storage_master_key) shared key
//	azure_storage_sas_key (azure_storage_sas_token, sas_key, sas_token) SAS token (query string, with or without "?")
//	azure_storage_use_emulator (use_emulator)                      "true": Azurite at http://127.0.0.1:10000/<account> unless an endpoint is given
//	azure_storage_endpoint (azure_endpoint, endpoint)              service URL, e.g. http://127.0.0.1:10000/<account>
//	allow_http                                                     "true" permits an http:// endpoint (implied by use_emulator)
//
// Without a key or SAS token the Azure default credential chain is used
// (gocloud's azureblob environment handling: AZURE_STORAGE_KEY,
// AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING, or Azure AD).
package storage
