package storage

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	gcs "cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcp"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"
)

// storageOptions holds StorageOptions with lower-cased keys.
type storageOptions map[string]string

func normalizeOptions(in map[string]string) storageOptions {
	out := make(storageOptions, len(in))
	for k, v := range in {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

// get returns the value of the first of keys that is set and non-empty.
func (o storageOptions) get(keys ...string) string {
	for _, k := range keys {
		if v := o[k]; v != "" {
			return v
		}
	}
	return ""
}

// boolean returns the value of the first of keys that is set, and whether one was.
func (o storageOptions) boolean(keys ...string) (value, set bool, err error) {
	for _, k := range keys {
		v, ok := o[k]
		if !ok || v == "" {
			continue
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return false, false, fmt.Errorf("%w: %s=%q is not a boolean", ErrInvalidOption, k, v)
		}
		return b, true, nil
	}
	return false, false, nil
}

// checkEndpoint parses an endpoint URL and refuses plain http unless allowed.
func checkEndpoint(endpoint string, allowHTTP bool) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: endpoint %q is not an absolute URL", ErrInvalidOption, endpoint)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowHTTP {
			return fmt.Errorf("%w: endpoint %q uses http; set allow_http=true to permit it", ErrInvalidOption, endpoint)
		}
	default:
		return fmt.Errorf("%w: endpoint %q must be http or https", ErrInvalidOption, endpoint)
	}
	return nil
}

// maxRetries reads client_max_retries (LanceDB's key): -1 when unset (the SDK's default).
func (o storageOptions) maxRetries() (int, error) {
	v := strings.TrimSpace(o.get("client_max_retries"))
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 100 {
		return 0, fmt.Errorf("%w: client_max_retries=%q (want an integer from 0 to 100)", ErrInvalidOption, v)
	}
	return n, nil
}

// s3Config is the resolved configuration of an S3 store.
type s3Config struct {
	endpoint      string
	region        string
	accessKeyID   string
	secretKey     string
	sessionToken  string
	pathStyle     bool
	anonymous     bool
	checksumWhen  aws.RequestChecksumCalculation // 0: SDK default
	responseCheck aws.ResponseChecksumValidation
}

func parseS3Options(so storageOptions) (s3Config, error) {
	var c s3Config
	allowHTTP, _, err := so.boolean("allow_http", "aws_allow_http")
	if err != nil {
		return c, err
	}
	c.endpoint = so.get("aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url")
	if c.endpoint != "" {
		if err := checkEndpoint(c.endpoint, allowHTTP); err != nil {
			return c, err
		}
	}
	c.region = so.get("aws_region", "region", "aws_default_region", "default_region")
	c.accessKeyID = so.get("aws_access_key_id", "access_key_id")
	c.secretKey = so.get("aws_secret_access_key", "secret_access_key")
	c.sessionToken = so.get("aws_session_token", "session_token", "aws_token", "token")
	if (c.accessKeyID == "") != (c.secretKey == "") {
		return c, fmt.Errorf("%w: aws_access_key_id and aws_secret_access_key must be given together", ErrInvalidOption)
	}
	if c.anonymous, _, err = so.boolean("aws_skip_signature", "skip_signature"); err != nil {
		return c, err
	}
	c.pathStyle = c.endpoint != ""
	if v, set, err := so.boolean("force_path_style", "aws_force_path_style", "use_path_style"); err != nil {
		return c, err
	} else if set {
		c.pathStyle = v
	}
	if v, set, err := so.boolean("aws_virtual_hosted_style_request", "virtual_hosted_style_request"); err != nil {
		return c, err
	} else if set {
		c.pathStyle = !v
	}
	switch v := strings.ToLower(so.get("aws_request_checksum_calculation", "request_checksum_calculation")); v {
	case "":
		if c.endpoint != "" {
			c.checksumWhen = aws.RequestChecksumCalculationWhenRequired
			c.responseCheck = aws.ResponseChecksumValidationWhenRequired
		}
	case "when_supported":
		c.checksumWhen = aws.RequestChecksumCalculationWhenSupported
	case "when_required":
		c.checksumWhen = aws.RequestChecksumCalculationWhenRequired
		c.responseCheck = aws.ResponseChecksumValidationWhenRequired
	default:
		return c, fmt.Errorf("%w: aws_request_checksum_calculation=%q (want when_supported or when_required)", ErrInvalidOption, v)
	}
	return c, nil
}

func openS3(ctx context.Context, bucket, prefix string, so storageOptions) (Store, error) {
	c, err := parseS3Options(so)
	if err != nil {
		return nil, err
	}
	retries, err := so.maxRetries()
	if err != nil {
		return nil, err
	}
	var load []func(*awsconfig.LoadOptions) error
	if c.region != "" {
		load = append(load, awsconfig.WithRegion(c.region))
	}
	switch {
	case c.anonymous:
		load = append(load, awsconfig.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case c.accessKeyID != "":
		load = append(load, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.accessKeyID, c.secretKey, c.sessionToken)))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("s3://%s: load AWS configuration: %w", bucket, err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if c.checksumWhen != 0 {
		cfg.RequestChecksumCalculation = c.checksumWhen
	}
	if c.responseCheck != 0 {
		cfg.ResponseChecksumValidation = c.responseCheck
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.endpoint != "" {
			o.BaseEndpoint = aws.String(c.endpoint)
		}
		o.UsePathStyle = c.pathStyle
		if retries >= 0 {
			o.Retryer = retry.AddWithMaxAttempts(retry.NewStandard(), retries+1)
		}
	})
	b, err := s3blob.OpenBucket(ctx, client, bucket, &s3blob.Options{
		RequestChecksumCalculation: cfg.RequestChecksumCalculation,
	})
	if err != nil {
		return nil, fmt.Errorf("s3://%s: %w", bucket, err)
	}
	return newCloudStore(b, "s3", bucket, prefix), nil
}

func newCloudStore(b *blob.Bucket, scheme, bucket, prefix string) *blobStore {
	return &blobStore{bucket: b, prefix: prefix, uri: bucketURI(scheme, bucket, prefix), closeBucket: true}
}

const gcsScope = "https://www.googleapis.com/auth/cloud-platform"

func openGCS(ctx context.Context, bucket, prefix string, so storageOptions) (Store, error) {
	anonymous, _, err := so.boolean("google_skip_signature", "skip_signature")
	if err != nil {
		return nil, err
	}
	retries, err := so.maxRetries()
	if err != nil {
		return nil, err
	}
	keyJSON := so.get("google_service_account_key", "service_account_key")
	keyPath := so.get("google_service_account", "service_account", "google_service_account_path",
		"service_account_path", "google_application_credentials")
	endpoint := so.get("google_endpoint", "endpoint")
	if endpoint != "" {
		allowHTTP, _, err := so.boolean("allow_http")
		if err != nil {
			return nil, err
		}
		if err := checkEndpoint(endpoint, allowHTTP); err != nil {
			return nil, err
		}
	}
	var client *gcp.HTTPClient
	switch {
	case anonymous || os.Getenv("STORAGE_EMULATOR_HOST") != "":
		client = gcp.NewAnonymousHTTPClient(gcp.DefaultTransport())
	case keyJSON != "" || keyPath != "":
		data := []byte(keyJSON)
		if keyJSON == "" {
			if data, err = os.ReadFile(keyPath); err != nil {
				return nil, fmt.Errorf("%w: google service account key: %v", ErrInvalidOption, err)
			}
		}
		creds, err := google.CredentialsFromJSONWithType(ctx, data, google.ServiceAccount, gcsScope)
		if err != nil {
			return nil, fmt.Errorf("%w: google service account key: %v", ErrInvalidOption, err)
		}
		if client, err = gcp.NewHTTPClient(gcp.DefaultTransport(), gcp.CredentialsTokenSource(creds)); err != nil {
			return nil, fmt.Errorf("gs://%s: %w", bucket, err)
		}
	default:
		creds, err := gcp.DefaultCredentials(ctx)
		if err != nil {
			return nil, fmt.Errorf("gs://%s: no Google credentials (set google_service_account or Application Default Credentials): %w", bucket, err)
		}
		if client, err = gcp.NewHTTPClient(gcp.DefaultTransport(), gcp.CredentialsTokenSource(creds)); err != nil {
			return nil, fmt.Errorf("gs://%s: %w", bucket, err)
		}
	}
	opts := &gcsblob.Options{}
	if endpoint != "" {
		opts.ClientOptions = append(opts.ClientOptions, option.WithEndpoint(endpoint))
	}
	b, err := gcsblob.OpenBucket(ctx, client, bucket, opts)
	if err != nil {
		return nil, fmt.Errorf("gs://%s: %w", bucket, err)
	}
	if retries >= 0 {
		var sc *gcs.Client
		if b.As(&sc) {
			if retries == 0 {
				// Uploads ignore WithMaxAttempts (they retry until the context ends); only
				// the policy turns their retries off.
				sc.SetRetry(gcs.WithPolicy(gcs.RetryNever))
			} else {
				sc.SetRetry(gcs.WithMaxAttempts(retries + 1))
			}
		}
	}
	return newCloudStore(b, "gs", bucket, prefix), nil
}

// azuriteAccount and azuriteKey are the fixed, publicly documented development credentials
// of the Azure Storage emulator (Azurite); object_store uses them for use_emulator too.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

func openAzure(ctx context.Context, containerName, prefix string, so storageOptions, blockSize int64) (Store, error) {
	if blockSize < 0 {
		return nil, fmt.Errorf("%w: AzureBlockSize %d is negative", ErrInvalidOption, blockSize)
	}
	if blockSize == 0 {
		blockSize = DefaultAzureBlockSize
	}
	if blockSize > maxAzureBlockSize {
		return nil, fmt.Errorf("%w: AzureBlockSize %d is over Azure's block limit of %d bytes", ErrInvalidOption, blockSize, int64(maxAzureBlockSize))
	}
	account := so.get("azure_storage_account_name", "account_name")
	key := so.get("azure_storage_account_key", "account_key", "access_key", "azure_storage_access_key",
		"master_key", "azure_storage_master_key")
	sas := strings.TrimPrefix(so.get("azure_storage_sas_key", "azure_storage_sas_token", "sas_key", "sas_token"), "?")
	endpoint := so.get("azure_storage_endpoint", "azure_endpoint", "endpoint")
	emulator, _, err := so.boolean("azure_storage_use_emulator", "use_emulator")
	if err != nil {
		return nil, err
	}
	allowHTTP, _, err := so.boolean("allow_http")
	if err != nil {
		return nil, err
	}
	retries, err := so.maxRetries()
	if err != nil {
		return nil, err
	}
	if emulator {
		allowHTTP = true
		if account == "" {
			account = azuriteAccount
			if key == "" && sas == "" {
				key = azuriteKey
			}
		}
		if endpoint == "" {
			endpoint = "http://127.0.0.1:10000/" + account
		}
	}
	var svcURL string
	if endpoint != "" {
		if err := checkEndpoint(endpoint, allowHTTP); err != nil {
			return nil, err
		}
		svcURL = strings.TrimSuffix(endpoint, "/")
	} else {
		if account == "" {
			return nil, fmt.Errorf("%w: az://%s needs azure_storage_account_name (or an endpoint)", ErrInvalidOption, containerName)
		}
		u, err := azureblob.NewServiceURL(&azureblob.ServiceURLOptions{AccountName: account})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidOption, err)
		}
		svcURL = strings.TrimSuffix(string(u), "/")
	}
	containerURL := svcURL + "/" + url.PathEscape(containerName)
	clientOpts := &container.ClientOptions{ClientOptions: azcore.ClientOptions{InsecureAllowCredentialWithHTTP: allowHTTP}}
	switch {
	case retries == 0:
		clientOpts.Retry.MaxRetries = -1 // azcore: negative is one try, 0 its default (3)
	case retries > 0:
		clientOpts.Retry.MaxRetries = int32(retries)
	}
	var client *container.Client
	switch {
	case key != "":
		if account == "" {
			return nil, fmt.Errorf("%w: azure_storage_account_key needs azure_storage_account_name", ErrInvalidOption)
		}
		cred, cerr := azblob.NewSharedKeyCredential(account, key)
		if cerr != nil {
			return nil, fmt.Errorf("%w: azure shared key: %v", ErrInvalidOption, cerr)
		}
		client, err = container.NewClientWithSharedKeyCredential(containerURL, cred, clientOpts)
	case sas != "":
		client, err = container.NewClientWithNoCredential(containerURL+"?"+sas, clientOpts)
	default:
		client, err = azureblob.NewDefaultClient(azureblob.ServiceURL(svcURL), azureblob.ContainerName(containerName))
	}
	if err != nil {
		return nil, fmt.Errorf("az://%s: %w", containerName, err)
	}
	b, err := azureblob.OpenBucket(ctx, client, nil)
	if err != nil {
		return nil, fmt.Errorf("az://%s: %w", containerName, err)
	}
	st := newCloudStore(b, "az", containerName, prefix)
	st.azure, st.azureBlockSize = client, blockSize
	return st, nil
}
