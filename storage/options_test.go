package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestParseS3Options(t *testing.T) {
	cases := []struct {
		name    string
		in      map[string]string
		want    s3Config
		wantErr error
	}{
		{
			name: "lancedb storageOptions against a local server",
			in: map[string]string{"endpoint": "http://127.0.0.1:7070", "allow_http": "true",
				"aws_access_key_id": "AK", "aws_secret_access_key": "SK", "region": "eu-west-1"},
			want: s3Config{endpoint: "http://127.0.0.1:7070", region: "eu-west-1", accessKeyID: "AK", secretKey: "SK",
				pathStyle: true, checksumWhen: aws.RequestChecksumCalculationWhenRequired,
				responseCheck: aws.ResponseChecksumValidationWhenRequired},
		},
		{
			name: "object_store aliases, any case",
			in: map[string]string{"AWS_ENDPOINT": "https://s3.example.com", "ACCESS_KEY_ID": "AK",
				"Secret_Access_Key": "SK", "aws_session_token": "TOK", "aws_region": "us-west-2"},
			want: s3Config{endpoint: "https://s3.example.com", region: "us-west-2", accessKeyID: "AK", secretKey: "SK",
				sessionToken: "TOK", pathStyle: true, checksumWhen: aws.RequestChecksumCalculationWhenRequired,
				responseCheck: aws.ResponseChecksumValidationWhenRequired},
		},
		{
			name: "virtual hosted style requested with an endpoint",
			in:   map[string]string{"endpoint": "https://s3.example.com", "aws_virtual_hosted_style_request": "true"},
			want: s3Config{endpoint: "https://s3.example.com", pathStyle: false,
				checksumWhen: aws.RequestChecksumCalculationWhenRequired, responseCheck: aws.ResponseChecksumValidationWhenRequired},
		},
		{
			name: "force_path_style against AWS",
			in:   map[string]string{"force_path_style": "true", "aws_request_checksum_calculation": "when_supported"},
			want: s3Config{pathStyle: true, checksumWhen: aws.RequestChecksumCalculationWhenSupported},
		},
		{
			name: "AWS defaults",
			in:   map[string]string{},
			want: s3Config{},
		},
		{
			name: "anonymous",
			in:   map[string]string{"skip_signature": "true"},
			want: s3Config{anonymous: true},
		},
		{name: "http endpoint without allow_http", in: map[string]string{"endpoint": "http://127.0.0.1:7070"}, wantErr: ErrInvalidOption},
		{name: "endpoint without scheme", in: map[string]string{"endpoint": "127.0.0.1:7070"}, wantErr: ErrInvalidOption},
		{name: "key id without secret", in: map[string]string{"aws_access_key_id": "AK"}, wantErr: ErrInvalidOption},
		{name: "bad boolean", in: map[string]string{"allow_http": "yes please"}, wantErr: ErrInvalidOption},
		{name: "bad checksum mode", in: map[string]string{"aws_request_checksum_calculation": "always"}, wantErr: ErrInvalidOption},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseS3Options(normalizeOptions(c.in))
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("error = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// Opening gs:// and az:// stores needs no network; the configuration errors are typed.
func TestOpenGCSAndAzureConfiguration(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key.json")
	os.WriteFile(keyFile, []byte(`{"type": "service_account", "broken": `), 0o600)
	cases := []struct {
		uri     string
		opts    map[string]string
		wantURI string
		wantErr error
	}{
		{"gs://bucket/lake", map[string]string{"google_skip_signature": "true"}, "gs://bucket/lake", nil},
		{"gs://bucket/lake", map[string]string{"skip_signature": "true", "endpoint": "http://127.0.0.1:4443/storage/v1/", "allow_http": "true"}, "gs://bucket/lake", nil},
		{"gs://bucket", map[string]string{"skip_signature": "true", "endpoint": "http://127.0.0.1:4443/storage/v1/"}, "", ErrInvalidOption},
		{"gs://bucket", map[string]string{"google_service_account": filepath.Join(t.TempDir(), "missing.json")}, "", ErrInvalidOption},
		{"gs://bucket", map[string]string{"google_service_account": keyFile}, "", ErrInvalidOption},
		{"az://container/lake", map[string]string{"azure_storage_use_emulator": "true"}, "az://container/lake", nil},
		{"az://container", map[string]string{"account_name": "acct", "account_key": "a2V5"}, "az://container", nil},
		{"az://container", map[string]string{"account_name": "acct", "sas_token": "?sv=2020&sig=x"}, "az://container", nil},
		{"az://container", map[string]string{"endpoint": "http://127.0.0.1:10000/acct", "account_name": "acct", "account_key": "a2V5"}, "", ErrInvalidOption},
		{"az://container", map[string]string{"account_key": "a2V5", "endpoint": "https://example.com/acct"}, "", ErrInvalidOption},
		{"az://container", map[string]string{}, "", ErrInvalidOption},
		{"az://container", map[string]string{"use_emulator": "maybe"}, "", ErrInvalidOption},
	}
	for _, c := range cases {
		s, err := Open(ctx, c.uri, Options{StorageOptions: c.opts})
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("Open(%q, %v) error = %v, want %v", c.uri, c.opts, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q, %v): %v", c.uri, c.opts, err)
			continue
		}
		if s.URI() != c.wantURI {
			t.Errorf("Open(%q).URI() = %q, want %q", c.uri, s.URI(), c.wantURI)
		}
		if loc := s.Location("t.lance/_versions/1.manifest"); loc != c.wantURI+"/t.lance/_versions/1.manifest" {
			t.Errorf("Location = %q", loc)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// client_max_retries (LanceDB's key) bounds the SDK retries of every object store; a value
// that is not an integer from 0 to 100 is refused before any request.
func TestClientMaxRetriesOption(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    int
		wantErr bool
	}{{"", -1, false}, {"0", 0, false}, {" 3 ", 3, false}, {"-1", 0, true}, {"many", 0, true}, {"101", 0, true}} {
		got, err := normalizeOptions(map[string]string{"Client_Max_Retries": tc.in}).maxRetries()
		if tc.wantErr {
			if !errors.Is(err, ErrInvalidOption) {
				t.Errorf("client_max_retries=%q: err %v, want ErrInvalidOption", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("client_max_retries=%q: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, uri := range []string{"s3://b/p", "gs://b/p", "az://c/p"} {
		_, err := Open(context.Background(), uri, Options{StorageOptions: map[string]string{
			"client_max_retries": "x", "azure_storage_account_name": "a", "google_skip_signature": "true"}})
		if !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s with client_max_retries=x: %v, want ErrInvalidOption", uri, err)
		}
	}
}
