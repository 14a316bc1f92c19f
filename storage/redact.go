package storage

import (
	"maps"
	"regexp"
	"strings"
)

// Redacted replaces a secret in text lancecat shows (errors, EXPLAIN, SHOW,
// logs).
const Redacted = "REDACTED"

// secretKey matches the names of parameters and storage options whose
// values are secrets: keys, passwords, tokens, credentials and signatures
// (SAS "sig", S3 "X-Amz-Signature"), with any prefix such as "storage.".
const secretKey = `[A-Za-z0-9_.\-]*(?i:sig|signature|secret|password|passwd|pwd|token|credential|private_key|access_key|account_key|sas|auth)[A-Za-z0-9_.\-]*`

var (
	// key=value after a start of parameter (also percent-encoded: %26, %3F,
	// %3D), up to the next separator.
	secretParam = regexp.MustCompile(`((?:^|[?&;\s"'(,]|%26|%3[Ff])` + secretKey + `(?:=|%3[Dd]))[^&\s"',;)]*`)
	// the password of URL user info: scheme://user:password@host
	userPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^/@\s:"']*):[^/@\s"']*@`)
)

// Redact returns text with the secrets it can recognise replaced by
// REDACTED: passwords of URL user info and the values of parameters named
// like secrets (query parameters, "key=value" option echoes, SAS tokens
// inside provider error messages).
func Redact(text string) string {
	if !strings.ContainsAny(text, "=@") && !strings.Contains(text, "%3") {
		return text
	}
	text = userPassword.ReplaceAllString(text, "${1}:"+Redacted+"@")
	return secretParam.ReplaceAllString(text, "${1}"+Redacted)
}

var secretKeyOnly = regexp.MustCompile(`^` + secretKey + `$`)

// IsSecretOption reports whether a storage option (or query parameter)
// holds a secret, by its name.
func IsSecretOption(key string) bool { return secretKeyOnly.MatchString(key) }

// RedactOptions returns a copy of storage options with secret values
// replaced and every other value redacted as text (an endpoint with a
// password in it).
func RedactOptions(opts map[string]string) map[string]string {
	if opts == nil {
		return nil
	}
	out := maps.Clone(opts)
	for k, v := range out {
		if IsSecretOption(k) {
			out[k] = Redacted
		} else {
			out[k] = Redact(v)
		}
	}
	return out
}

// RedactError returns err with its message redacted; errors.Is and
// errors.As still see the original chain.
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
