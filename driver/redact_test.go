package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	lancecat "github.com/lancecat/lancecat/driver"
)

// Issue #10 finding 5 with its exact inputs: secrets in a DSN's query and
// in an endpoint's user info never appear in errors or in a printed Config.
func TestSecretsAreRedacted(t *testing.T) {
	const secret = "AKIAsecretVALUE"
	for _, dsn := range []string{
		"s3://bkt/p?storage.aws_secret_access_key=" + secret + "&x=%zz",
		"s3://bkt/p?storage.aws_secret_access_key=" + secret + "&storage.aws_access_key_id=k&storage.endpoint=http://user:" + secret + "@127.0.0.1:1",
		"s3://user:" + secret + "@bkt/p",
		"az://c/p?storage.azure_storage_sas_token=sv%3D2022%26sig%3D" + secret + "&bogus=1",
	} {
		db, err := sql.Open("lancecat", dsn)
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			t.Errorf("%s: no error", dsn)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%+v", err), secret) {
			t.Errorf("%s: the secret is in the error: %v", dsn, err)
		}
	}
	cfg := lancecat.Config{URI: "s3://bkt/p", StorageOptions: map[string]string{"aws_secret_access_key": secret, "endpoint": "http://u:" + secret + "@h"}}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%+v", cfg)} {
		if strings.Contains(s, secret) {
			t.Errorf("printed Config holds the secret: %s", s)
		}
	}
}
