package storage

import (
	"maps"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces a secret in text lancecat shows (errors, EXPLAIN, SHOW,
// information_schema, logs).
const Redacted = "REDACTED"

// The one rule for what is secret, used for storage options, query
// parameters, catalog properties (namespace and table properties, field
// metadata) and "key=value" echoes inside free text:
//
//   - a value whose name has a word meaning a secret (secret, password,
//     token, credential, signature, sig, sas, auth, ... also at the end of
//     a run-together word: "apikey", "sastoken", "clientsecret") is replaced
//     whole;
//   - a name with the word "key" is secret too ("AccountKey",
//     "aws_access_key_id", "encryption.key") unless the word before it
//     says it is a data-model key ("primary_key", "sort_key");
//   - every other value is shown with the secrets inside it redacted: the
//     password of a URL's user info and the values of secret-named
//     parameters ("...?sv=2022&sig=...").
//
// Names are split into words at punctuation and at camelCase boundaries, so
// "author" or "design" are not secrets while "SASToken" and
// "X-Amz-Signature" are.

// secretWords are the words of a name that make its value a secret, as a
// whole word or as the end of a run-together one.
var secretWords = []string{"secret", "secrets", "password", "passwd", "pwd", "passphrase", "token", "tokens",
	"credential", "credentials", "signature", "sig", "sas", "auth", "authorization", "cookie", "key"}

// dataKeyWords qualify "key" as a data-model key rather than a credential.
var dataKeyWords = map[string]bool{"primary": true, "sort": true, "partition": true, "foreign": true, "unique": true,
	"cluster": true, "clustering": true, "shard": true, "row": true, "hash": true, "range": true, "join": true,
	"lookup": true, "merge": true, "group": true, "order": true, "index": true, "dedup": true, "distribution": true,
	"natural": true, "surrogate": true, "composite": true, "business": true, "candidate": true, "unenforced": true}

// nameWords splits a property, option or parameter name into lower-case
// words: at every character that is not a letter or digit and at camelCase
// boundaries ("SASToken" -> sas, token).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// IsSecretOption reports whether a storage option, query parameter or
// catalog property holds a secret, by its name (the rule above).
func IsSecretOption(name string) bool {
	words := nameWords(name)
	for i, w := range words {
		for _, s := range secretWords {
			if !strings.HasSuffix(w, s) {
				continue
			}
			if s == "key" && w == "key" && i > 0 && dataKeyWords[words[i-1]] {
				continue
			}
			if s == "key" && w != "key" && dataKeyWords[strings.TrimSuffix(w, "key")] {
				continue
			}
			return true
		}
	}
	return false
}

var (
	// key=value after a start of parameter (also percent-encoded: %26, %3F,
	// %3D), up to the next separator, or a quoted value whole
	// (key="value" must not leave the value after the mark). Group 1 is everything before the
	// value, group 2 the name, group 3 the value.
	param = regexp.MustCompile(`((?:^|[?&;\s"'(,]|%26|%3[Ff])([A-Za-z0-9_.\-]+)(?:=|%3[Dd]))("[^"]*"|'[^']*'|[^&\s"',;)]*)`)
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
	return redactParams(userPassword.ReplaceAllString(text, "${1}:"+Redacted+"@"))
}

// redactParams replaces the values of secret-named parameters; the value
// of any other parameter is searched in turn (a URL with a signed query as
// the value of "source=").
func redactParams(text string) string {
	matches := param.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(text[last:m[3]]) // up to the end of "name="
		value := text[m[6]:m[7]]
		switch {
		case IsSecretOption(text[m[4]:m[5]]):
			b.WriteString(Redacted)
		case value != "":
			b.WriteString(redactParams(value))
		}
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// RedactProperty is a property's or option's value as lancecat displays it:
// REDACTED when its name says it is a secret, else the value with the
// secrets inside it redacted.
func RedactProperty(name, value string) string {
	if IsSecretOption(name) {
		return Redacted
	}
	return Redact(value)
}

// RedactOptions returns a copy of storage options (or catalog properties)
// with every value as RedactProperty displays it.
func RedactOptions(opts map[string]string) map[string]string {
	if opts == nil {
		return nil
	}
	out := maps.Clone(opts)
	for k, v := range out {
		out[k] = RedactProperty(k, v)
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
