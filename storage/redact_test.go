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
		{`option aws_secret_access_key="S3CR3T VALUE" refused`, "S3CR3T", "refused"},
		{`google_service_account_key='{"k": "S3CR3T"}', region=x`, "S3CR3T", "region=x"},
		{"https://s3.amazonaws.com/b/k?X-Amz-Credential=AKIA%2F20250101&X-Amz-Signature=f00d", "f00d", "X-Amz-Signature=REDACTED"},
	} {
		got := Redact(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, c.keep) {
			t.Errorf("Redact(%q) = %q: want %q gone and %q kept", c.in, got, c.secret, c.keep)
		}
	}
	for _, plain := range []string{"table \"ns$t\" does not exist", "s3://bucket/prefix/t.lance", "a=1 and b=2", "sort_key=id", "author=alice", "design=x&tokenizer=simple"} {
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

// The one rule for secret names (storage options, query parameters,
// catalog properties, field metadata): words meaning a secret, also in
// camelCase and run-together spellings, and "key" unless a data-model word
// qualifies it; words that merely contain such letters are not secrets.
func TestIsSecretOption(t *testing.T) {
	for _, c := range []struct {
		name   string
		secret bool
	}{
		{"aws_secret_access_key", true},
		{"storage.aws_secret_access_key", true},
		{"aws_access_key_id", true},
		{"aws_session_token", true},
		{"azure_storage_sas_token", true},
		{"azure_storage_account_key", true},
		{"AccountKey", true},
		{"SharedAccessSignature", true},
		{"SASToken", true},
		{"sasToken", true},
		{"X-Amz-Signature", true},
		{"X-Amz-Credential", true},
		{"X-Goog-Signature", true},
		{"sig", true},
		{"password", true},
		{"db.passwd", true},
		{"apikey", true},
		{"api_key", true},
		{"clientSecret", true},
		{"google_application_credentials", true},
		{"encryption.key", true},
		{"key", true},
		{"Authorization", true},
		{"oauth", true},
		{"region", false},
		{"endpoint", false},
		{"owner", false},
		{"author", false},
		{"design", false},
		{"signal", false},
		{"assignee", false},
		{"tokenizer", false},
		{"base_tokenizer", false},
		{"primary_key", false},
		{"sort_key", false},
		{"partitionKey", false},
		{"lance-schema:unenforced-primary-key:position", false},
		{"lance.namespace.manifest.reader_feature_flags", false},
		{"comment", false},
		{"tier", false},
	} {
		if got := IsSecretOption(c.name); got != c.secret {
			t.Errorf("IsSecretOption(%q) = %v, want %v", c.name, got, c.secret)
		}
	}
}

// RedactProperty: a secret-named value is replaced whole; any other value
// keeps what is not secret and loses the password of a URL's user info and
// the values of signed-query parameters.
func TestRedactProperty(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"storage.azure_storage_sas_token", "sv=2022&sig=S3CR3T", Redacted},
		{"aws_secret_access_key", "plain-looking-value", Redacted},
		{"source", "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sig=S3CR3T", "https://acct.blob.core.windows.net/c/x?sv=2022-11-02&sig=" + Redacted},
		{"source", "https://s3.amazonaws.com/b/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=f00d&X-Amz-Expires=60", "https://s3.amazonaws.com/b/k?X-Amz-Credential=" + Redacted + "&X-Amz-Signature=" + Redacted + "&X-Amz-Expires=60"},
		{"endpoint", "http://user:pa55word@host:9000/x", "http://user:" + Redacted + "@host:9000/x"},
		{"mirror", "s3://bkt/p?aws_secret_access_key=S3CR3T&region=eu", "s3://bkt/p?aws_secret_access_key=" + Redacted + "&region=eu"},
		{"location", "abfss://container@acct.dfs.core.windows.net/p", "abfss://container@acct.dfs.core.windows.net/p"},
		{"owner", "ml-team", "ml-team"},
		{"author", "alice", "alice"},
		{"filter", "a=1 and b=2", "a=1 and b=2"},
	} {
		if got := RedactProperty(c.name, c.value); got != c.want {
			t.Errorf("RedactProperty(%q, %q) = %q, want %q", c.name, c.value, got, c.want)
		}
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
