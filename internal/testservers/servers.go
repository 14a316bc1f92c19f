package testservers

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// S3 credentials of the versitygw test server (test-only, loopback-only).
const (
	s3Access = "lancecat-test-access"
	s3Secret = "lancecat-test-secret-key"
	s3Region = "us-east-1"
)

// Azurite's fixed, publicly documented development account.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// S3 returns the versitygw server, starting it on first use. It honours conditional PUT
// (If-None-Match: *), which commits rely on.
func S3(t testing.TB) *Server {
	t.Helper()
	return get(t, "s3", startVersitygw)
}

// Azure returns the azurite (Blob service) server, starting it on first use.
func Azure(t testing.TB) *Server {
	t.Helper()
	return get(t, "az", startAzurite)
}

// GCS returns the fake-gcs-server, starting it on first use.
func GCS(t testing.TB) *Server {
	t.Helper()
	return get(t, "gs", startFakeGCS)
}

// PeerEnv is the environment the reference peer needs to reach the server. Its namespace code
// passes the connection's storage options to the `__manifest` table but opens the catalog's
// tables with an object store configured from the environment alone (S3 fails with "Failed to
// resolve region", Azure with "no Azure account name in URI", GCS asks the cloud metadata
// server for a token), so the credentials and endpoint go there too.
func (s *Server) PeerEnv() []string {
	switch s.Name {
	case "s3":
		return []string{
			"AWS_REGION=" + s3Region,
			"AWS_ENDPOINT=" + s.Endpoint,
			"AWS_ACCESS_KEY_ID=" + s3Access,
			"AWS_SECRET_ACCESS_KEY=" + s3Secret,
			"AWS_ALLOW_HTTP=true",
		}
	case "az":
		return []string{
			"AZURE_STORAGE_ACCOUNT_NAME=" + azuriteAccount,
			"AZURE_STORAGE_ACCOUNT_KEY=" + azuriteKey,
			"AZURE_STORAGE_ENDPOINT=" + s.Endpoint,
			"AZURE_ALLOW_HTTP=true",
		}
	case "gs":
		return []string{
			"GOOGLE_SERVICE_ACCOUNT_KEY=" + s.PeerStorageOptions["google_service_account_key"],
			"GOOGLE_ALLOW_HTTP=true",
		}
	}
	return nil
}

func startVersitygw() (*Server, string, error) {
	bin := findGoBin("versitygw")
	if bin == "" {
		return nil, "versitygw not found on PATH or in $(go env GOPATH)/bin; install it with " +
			"`go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`", nil
	}
	tmp, err := os.MkdirTemp("", "lancecat-versitygw-")
	if err != nil {
		return nil, "", err
	}
	srv := &Server{Name: "s3", tmp: tmp, DataDir: filepath.Join(tmp, "data")}
	if err := os.MkdirAll(filepath.Join(srv.DataDir, Bucket), 0o755); err != nil {
		return nil, "", err
	}
	cmd, exited, addr, err := launch(tmp, "versitygw", func(addr string, _ int) []string {
		return []string{bin, "--access", s3Access, "--secret", s3Secret, "--port", addr, "--quiet", "posix", srv.DataDir}
	})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, "", err
	}
	srv.cmd, srv.exited, srv.Endpoint = cmd, exited, "http://"+addr
	srv.StorageOptions = map[string]string{
		"endpoint":              srv.Endpoint,
		"allow_http":            "true",
		"aws_access_key_id":     s3Access,
		"aws_secret_access_key": s3Secret,
		"region":                s3Region,
	}
	srv.PeerStorageOptions = srv.StorageOptions
	return srv, "", nil
}

func startFakeGCS() (*Server, string, error) {
	bin := findGoBin("fake-gcs-server")
	if bin == "" {
		return nil, "fake-gcs-server not found on PATH or in $(go env GOPATH)/bin; install it with " +
			"`go install github.com/fsouza/fake-gcs-server@v1.56.1`", nil
	}
	tmp, err := os.MkdirTemp("", "lancecat-fakegcs-")
	if err != nil {
		return nil, "", err
	}
	srv := &Server{Name: "gs", tmp: tmp}
	cmd, exited, addr, err := launch(tmp, "fake-gcs-server", func(addr string, port int) []string {
		return []string{bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
			"-backend", "memory", "-public-host", addr, "-external-url", "http://" + addr, "-log-level", "error"}
	})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, "", err
	}
	srv.cmd, srv.exited, srv.Endpoint = cmd, exited, "http://"+addr
	// The bucket, through the JSON API.
	body := strings.NewReader(`{"name":"` + Bucket + `"}`)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Post(srv.Endpoint+"/storage/v1/b?project=test", "application/json", body)
	if err != nil {
		srv.stop()
		return nil, "", fmt.Errorf("create bucket on fake-gcs-server: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		srv.stop()
		return nil, "", fmt.Errorf("create bucket on fake-gcs-server: %s", resp.Status)
	}
	srv.StorageOptions = map[string]string{
		"google_endpoint":       srv.Endpoint + "/storage/v1/",
		"allow_http":            "true",
		"google_skip_signature": "true",
	}
	key, err := fakeGCSServiceAccount(srv.Endpoint)
	if err != nil {
		srv.stop()
		return nil, "", err
	}
	srv.PeerStorageOptions = map[string]string{"google_service_account_key": key, "allow_http": "true"}
	return srv, "", nil
}

func startAzurite() (*Server, string, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, "", err
	}
	bin := filepath.Join(root, "conformance", "objstores", "node_modules", ".bin", "azurite-blob")
	if _, err := os.Stat(bin); err != nil {
		return nil, "azurite not installed; run `npm ci` in conformance/objstores", nil
	}
	if _, err := execLookNode(); err != nil {
		return nil, "node not found on PATH (azurite runs on Node.js)", nil
	}
	tmp, err := os.MkdirTemp("", "lancecat-azurite-")
	if err != nil {
		return nil, "", err
	}
	srv := &Server{Name: "az", tmp: tmp}
	cmd, exited, addr, err := launch(tmp, "azurite", func(_ string, port int) []string {
		return []string{bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
			"--inMemoryPersistence", "--skipApiVersionCheck", "--loose", "--silent"}
	})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, "", err
	}
	srv.cmd, srv.exited, srv.Endpoint = cmd, exited, "http://"+addr+"/"+azuriteAccount
	cred, err := azblob.NewSharedKeyCredential(azuriteAccount, azuriteKey)
	if err != nil {
		srv.stop()
		return nil, "", err
	}
	cc, err := container.NewClientWithSharedKeyCredential(srv.Endpoint+"/"+Bucket, cred,
		&container.ClientOptions{ClientOptions: azcore.ClientOptions{InsecureAllowCredentialWithHTTP: true}})
	if err != nil {
		srv.stop()
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := cc.Create(ctx, nil); err != nil {
		srv.stop()
		return nil, "", fmt.Errorf("create container on azurite: %w", err)
	}
	// Account, key and endpoint given explicitly: lancecat and object_store read the same keys
	// (object_store's use_emulator ignores an endpoint option: it reads AZURITE_BLOB_STORAGE_URL).
	srv.StorageOptions = map[string]string{
		"azure_storage_account_name": azuriteAccount,
		"azure_storage_account_key":  azuriteKey,
		"azure_storage_endpoint":     srv.Endpoint,
		"allow_http":                 "true",
	}
	srv.PeerStorageOptions = srv.StorageOptions
	return srv, "", nil
}

// fakeGCSServiceAccount returns a service account key (JSON) that points object_store, the
// reference's object-store client, at fake-gcs-server: object_store has no endpoint option for
// GCS, but reads "gcs_base_url" and "disable_oauth" from the key (its own test setup). The key
// must still hold a parseable RSA private key, so a throwaway one is generated.
func fakeGCSServiceAccount(endpoint string) (string, error) {
	pk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(pk)
	if err != nil {
		return "", err
	}
	key, err := json.Marshal(map[string]any{
		"type":           "service_account",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"private_key_id": "lancecat-test",
		"client_email":   "lancecat-test@example.invalid",
		"gcs_base_url":   endpoint,
		"disable_oauth":  true,
	})
	return string(key), err
}

// AzureSASOptions returns storage options that reach the Azure server with an account SAS
// token (read, write, delete, list, create) instead of the shared key, valid for an hour.
func (s *Server) AzureSASOptions(t testing.TB) map[string]string {
	t.Helper()
	if s.Name != "az" {
		t.Fatalf("AzureSASOptions on a %s server", s.Name)
	}
	cred, err := azblob.NewSharedKeyCredential(azuriteAccount, azuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	perms := sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true}
	types := sas.AccountResourceTypes{Service: true, Container: true, Object: true}
	qp, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   perms.String(),
		ResourceTypes: types.String(),
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"azure_storage_endpoint":  s.Endpoint,
		"azure_storage_sas_token": qp.Encode(),
		"allow_http":              "true",
	}
}
