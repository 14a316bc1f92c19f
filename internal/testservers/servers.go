package testservers

import (
	"context"
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

// PeerEnv is the environment the reference peer needs to reach the S3 server: its namespace
// code resolves the region and endpoint from the environment, not from storage options.
func (s *Server) PeerEnv() []string {
	if s.Name != "s3" {
		return nil
	}
	return []string{
		"AWS_REGION=" + s3Region,
		"AWS_ENDPOINT=" + s.Endpoint,
		"AWS_ACCESS_KEY_ID=" + s3Access,
		"AWS_SECRET_ACCESS_KEY=" + s3Secret,
		"AWS_ALLOW_HTTP=true",
	}
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
	srv.StorageOptions = map[string]string{
		"azure_storage_use_emulator": "true",
		"endpoint":                   srv.Endpoint,
	}
	return srv, "", nil
}
