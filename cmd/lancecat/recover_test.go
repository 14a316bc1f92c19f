package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// panicky is an io.Reader and io.Writer whose every call panics, as a bug in
// the CLI's own code (outside the driver, which recovers its own) would.
type panicky struct{ msg string }

func (p panicky) Read([]byte) (int, error)  { panic(p.msg) }
func (p panicky) Write([]byte) (int, error) { panic(p.msg) }

// A panic in the CLI ends in one line on stderr and status 70 (EX_SOFTWARE):
// no stack dump, and a secret in the panic value is redacted.
func TestCLIRecoversPanics(t *testing.T) {
	const secret = "wJalrXUtnFEMIK7MDENGbPxRfiCY"
	msg := "boom reading s3://bkt/p?aws_secret_access_key=" + secret
	for _, c := range []struct {
		name   string
		args   []string
		stdin  io.Reader
		stdout io.Writer // nil: a buffer
	}{
		{"script on stdin", []string{"--uri", t.TempDir()}, panicky{msg}, nil},
		{"printing a result", []string{"--uri", t.TempDir(), "-c", "SELECT 1"}, strings.NewReader(""), panicky{msg}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errb bytes.Buffer
			stdout := c.stdout
			if stdout == nil {
				stdout = &bytes.Buffer{}
			}
			status := runWithInput(c.args, c.stdin, stdout, &errb)
			if status != 70 {
				t.Fatalf("status %d, want 70; stderr %q", status, errb.String())
			}
			got := errb.String()
			if !strings.HasPrefix(got, "lancecat: internal error") || !strings.Contains(got, "boom reading s3://bkt/p") {
				t.Fatalf("stderr %q: want the internal-error line with the panic value", got)
			}
			if strings.Contains(got, secret) || strings.Contains(got, "goroutine") || strings.Count(got, "\n") != 1 {
				t.Fatalf("stderr shows a secret, a stack or more than one line: %q", got)
			}
		})
	}
}
