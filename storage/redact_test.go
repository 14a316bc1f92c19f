package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The exact inputs of issue #10 finding 5, and their kin: the secret must
// not survive, what identifies the resource must.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, secret, keep string }{
		{"s3://bkt/p?storage.aws_secret_access_key=AKIAsecretVALUE&x=%zz", "AKIAsecretVALUE", "s3://bkt/p"},
		{`Get "https://acct.blob.core.windows.net/c/k?se=2030&sp=r&sv=2022-11-02&sr=c&sig=abc%2Bdef%3D": dial tcp: timeout`, "abc%2Bdef", "acct.blob.core.windows.net/c/k"},
		{"endpoint \"http://user:pa55word@host:9000\" uses http", "pa55word", "user:REDACTED@host:9000"},
		{"storage.azure_storage_sas_token=sv=2022&sig=S3CR3T", "S3CR3T", "storage.azure_storage_sas_token="},
		{"url%3Fx%3D1%26sig%3DS3CR3T%26a%3Db", "S3CR3T", "url"},
		{"aws_session_token=TOKEN123 expired", "TOKEN123", "expired"},
		{"https://s3.amazonaws.com/b/k?X-Amz-Credential=AKIA%2F20250101&X-Amz-Signature=f00d", "f00d", "X-Amz-Signature=REDACTED"},
	} {
		got := Redact(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, c.keep) {
			t.Errorf("Redact(%q) = %q: want %q gone and %q kept", c.in, got, c.secret, c.keep)
		}
	}
	for _, plain := range []string{"table \"ns$t\" does not exist", "s3://bucket/prefix/t.lance", "a=1 and b=2", "key_id=1"} {
		if got := Redact(plain); got != plain {
			t.Errorf("Redact(%q) = %q, want it unchanged", plain, got)
		}
	}
	opts := RedactOptions(map[string]string{"aws_secret_access_key": "S", "azure_storage_sas_token": "sv=1&sig=S", "endpoint": "http://u:S@h", "region": "us-east-1"})
	for k, v := range opts {
		if strings.Contains(v, "S") && k != "region" && !strings.Contains(v, "REDACTED") {
			t.Errorf("RedactOptions: %s=%q", k, v)
		}
	}
	if opts["region"] != "us-east-1" {
		t.Errorf("region redacted: %q", opts["region"])
	}
}

// Opening a store echoes neither a secret query parameter nor an endpoint
// password in its error.
func TestOpenErrorsAreRedacted(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, "s3://bkt/p?storage.aws_secret_access_key=AKIAsecretVALUE&x=%zz", Options{})
	if err == nil || strings.Contains(err.Error(), "AKIAsecretVALUE") || !errors.Is(err, ErrInvalidURI) {
		t.Errorf("Open with a secret in the query: %v", err)
	}
	_, err = Open(ctx, "s3://bkt/p", Options{StorageOptions: map[string]string{"endpoint": "http://user:pa55word@127.0.0.1:1", "aws_access_key_id": "a", "aws_secret_access_key": "b", "region": "us-east-1"}})
	if err == nil || strings.Contains(err.Error(), "pa55word") {
		t.Errorf("Open with an endpoint password: %v", err)
	}
}
