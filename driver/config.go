package driver

import (
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lancecat/lancecat/catalog"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/storage"
)

// Mode selects the catalog layout served (see the package documentation).
type Mode = catalog.Mode

// Catalog modes.
const (
	ModeCompatibility = catalog.ModeCompatibility
	ModeManifestOnly  = catalog.ModeManifestOnly
	ModeDirectoryOnly = catalog.ModeDirectoryOnly
)

// Config configures a Connector. The zero value of every field but URI is
// the default.
type Config struct {
	// URI is the catalog root: a local path, file://, memory://name,
	// s3://bucket/prefix, gs://bucket/prefix or az://container/prefix,
	// without query parameters.
	URI string
	// Mode is the catalog layout (default ModeCompatibility).
	Mode Mode
	// SkipIndexBuild turns off rebuilding the `__manifest` scalar indices
	// on each commit (URI: build_indices=false).
	SkipIndexBuild bool
	// CommitRetries bounds retries after commit conflicts: 0 is the
	// default (20), negative means none.
	CommitRetries int
	// ReadOnly refuses every change.
	ReadOnly bool
	// LoadDataDir is the local directory LOAD DATA [LOCAL] INFILE may read
	// (URI: load_data_dir=/path); "" (the default) refuses LOAD DATA.
	LoadDataDir string
	// ImportSources are the object-store URI prefixes IMPORT INTO may
	// read (URI: import_sources=s3://bucket/dir,gs://bucket2; default none:
	// an IMPORT INTO from a URI is refused with PermissionDenied). They are
	// opened with StorageOptions, the catalog's credentials, which is why
	// SQL text alone may not choose them.
	ImportSources []string
	// AutoVacuumEvery vacuums the `__manifest` table after every that many
	// catalog commits of the handle (URI: auto_vacuum_every=K), deleting
	// the files of versions superseded more than a minute ago (version
	// files are kept; see catalog.DefaultAutoVacuumOptions for why that
	// is safe for concurrent readers, the reference included). Zero is
	// the default, every 20 commits; negative (URI: auto_vacuum_every=0)
	// never vacuums automatically. CALL vacuum_catalog works either way.
	AutoVacuumEvery int
	// Durability says when local-disk writes are fsynced (URI:
	// durability=full|none). Full, the default, makes each commit's files
	// durable together before the version that publishes them; none never
	// fsyncs, as the reference does (a crash of the machine can lose
	// recent commits, never tear one). Object stores ignore it.
	Durability storage.Durability
	// Namespace is the current namespace connections start in (nil: root).
	Namespace []string
	// LockLease is how long an advisory lock (GET_LOCK) of a connection
	// that stopped renewing it (a crashed process) blocks others (URI:
	// lock_lease=30s; 0: planner.DefaultLockLease, 30s).
	LockLease time.Duration
	// StorageOptions configure object-store access (LanceDB's
	// storageOptions keys).
	StorageOptions map[string]string
	// Logger receives what the caller's error cannot carry: a panic
	// recovered at the driver boundary is logged at Error level with its
	// stack (secrets redacted), while the caller gets an Internal error.
	// Nil logs to slog.Default(). It does not select the shared catalog
	// handle: connectors that differ only in Logger share one.
	Logger *slog.Logger
}

// scheme returns the URI scheme in lower case, or "" for a plain path.
func scheme(uri string) string {
	i := strings.Index(uri, "://")
	if i <= 0 {
		return ""
	}
	s := uri[:i]
	for j, c := range s {
		alpha := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !(alpha || (j > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
			return ""
		}
	}
	return strings.ToLower(s)
}

func isObjectStore(s string) bool { return s == "s3" || s == "gs" || s == "az" }

// ParseDSN parses a data source name (a URI with optional query parameters,
// see the package documentation) into a Config.
func ParseDSN(dsn string) (Config, error) {
	cfg := Config{}
	base, query, hasQuery := strings.Cut(dsn, "?")
	cfg.URI = base
	if cfg.URI == "" {
		return cfg, invalidf("empty catalog URI")
	}
	if !hasQuery {
		return cfg, nil
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return cfg, invalidf("bad query parameters in %q: %v", dsn, err)
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sch := scheme(base)
	for _, k := range keys {
		vs := values[k]
		if len(vs) != 1 {
			return cfg, invalidf("option %q given %d times", k, len(vs))
		}
		v := vs[0]
		switch k {
		case "mode":
			switch strings.ToLower(v) {
			case "compatibility", "compat", "":
				cfg.Mode = ModeCompatibility
			case "manifest", "manifest-only", "manifest_only":
				cfg.Mode = ModeManifestOnly
			case "directory", "directory-only", "directory_only", "dir":
				cfg.Mode = ModeDirectoryOnly
			default:
				return cfg, invalidf("mode=%q: want compatibility, manifest or directory", v)
			}
		case "build_indices":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return cfg, invalidf("build_indices=%q: want true or false", v)
			}
			cfg.SkipIndexBuild = !b
		case "commit_retries":
			n, err := strconv.Atoi(v)
			if err != nil || n < -1 {
				return cfg, invalidf("commit_retries=%q: want an integer >= -1", v)
			}
			cfg.CommitRetries = n
		case "auto_vacuum_every":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return cfg, invalidf("auto_vacuum_every=%q: want an integer >= 0 (0: never)", v)
			}
			cfg.AutoVacuumEvery = n
			if n == 0 {
				cfg.AutoVacuumEvery = -1
			}
		case "durability":
			d, err := storage.ParseDurability(v)
			if err != nil {
				return cfg, invalidf("durability=%q: want full or none", v)
			}
			cfg.Durability = d
		case "load_data_dir":
			cfg.LoadDataDir = v
		case "import_sources":
			cfg.ImportSources = nil
			for _, e := range strings.Split(v, ",") {
				if e = strings.TrimSpace(e); e != "" {
					cfg.ImportSources = append(cfg.ImportSources, e)
				}
			}
		case "read_only":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return cfg, invalidf("read_only=%q: want true or false", v)
			}
			cfg.ReadOnly = b
		case "lock_lease":
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second {
				return cfg, invalidf("lock_lease=%q: want a duration of at least 1s", v)
			}
			cfg.LockLease = d
		case "namespace":
			if v == "" {
				cfg.Namespace = nil
				continue
			}
			n, err := parseNamespace(v)
			if err != nil {
				return cfg, err
			}
			cfg.Namespace = n
		default:
			key := k
			if strings.HasPrefix(k, "storage.") {
				key = strings.TrimPrefix(k, "storage.")
			} else if !isObjectStore(sch) {
				return cfg, invalidf("unknown option %q (storage options need the \"storage.\" prefix, and only apply to s3://, gs:// and az:// catalogs)", k)
			}
			if key == "" {
				return cfg, invalidf("empty storage option name")
			}
			if cfg.StorageOptions == nil {
				cfg.StorageOptions = map[string]string{}
			}
			cfg.StorageOptions[key] = v
		}
	}
	return cfg, nil
}

// parseNamespace parses a dotted namespace name (`prod.ml`, backquoted
// parts allowed).
func parseNamespace(s string) ([]string, error) {
	st, err := sqlparse.ParseOne("USE " + s)
	if err != nil {
		return nil, invalidf("namespace=%q is not a namespace name", s)
	}
	u, ok := st.(*sqlparse.Use)
	if !ok {
		return nil, invalidf("namespace=%q is not a namespace name", s)
	}
	return u.Namespace, nil
}

// validate checks a Config.
func (c Config) validate() error {
	if c.URI == "" {
		return invalidf("Config.URI is empty")
	}
	if strings.ContainsAny(c.URI, "?#") && scheme(c.URI) != "" {
		return invalidf("Config.URI %q must not hold query parameters (use the Config fields)", c.URI)
	}
	switch c.Mode {
	case ModeCompatibility, ModeManifestOnly, ModeDirectoryOnly:
	default:
		return invalidf("unknown catalog mode %d", int(c.Mode))
	}
	// A local catalog takes storage options only for its import sources.
	if len(c.StorageOptions) > 0 && !isObjectStore(scheme(c.URI)) && len(c.ImportSources) == 0 {
		return invalidf("storage options only apply to s3://, gs:// and az:// catalogs (or import_sources), not %q", c.URI)
	}
	for _, e := range c.ImportSources {
		if !isObjectStore(scheme(e)) {
			return invalidf("import_sources entry %q is not an s3://, gs:// or az:// URI", storage.Redact(e))
		}
	}
	return nil
}

// key is the registry key of the catalog handle: the normalized root URI
// plus every option that changes how the catalog is opened. An empty key
// means the catalog is private (memory:// without a name).
func (c Config) key() string {
	root := c.URI
	switch scheme(root) {
	case "":
		if abs, err := filepath.Abs(root); err == nil {
			root = "file://" + filepath.ToSlash(abs)
		}
	case "file":
		if u, err := url.Parse(root); err == nil {
			root = "file://" + filepath.ToSlash(filepath.Clean(u.Path))
		}
	case "memory":
		if u, err := url.Parse(root); err == nil && u.Host == "" {
			return ""
		}
		root = strings.TrimRight(root, "/")
	default:
		root = strings.TrimRight(root, "/")
	}
	var b strings.Builder
	b.WriteString(root)
	b.WriteString("\x00mode=" + c.Mode.String())
	b.WriteString("\x00skip_index=" + strconv.FormatBool(c.SkipIndexBuild))
	b.WriteString("\x00retries=" + strconv.Itoa(c.CommitRetries))
	b.WriteString("\x00ro=" + strconv.FormatBool(c.ReadOnly))
	b.WriteString("\x00vacuum=" + strconv.Itoa(c.AutoVacuumEvery))
	b.WriteString("\x00durability=" + c.Durability.String())
	keys := make([]string, 0, len(c.StorageOptions))
	for k := range c.StorageOptions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("\x00s." + k + "=" + c.StorageOptions[k])
	}
	return b.String()
}

// QuoteName renders a multi-part name (namespace path, or namespace path
// plus table) as SQL text: parts joined by '.', each backquoted when it is
// not a plain identifier. Identifiers cannot be bound as arguments; build
// statements with QuoteName instead of splicing names by hand.
func QuoteName(parts ...string) string { return sqlparse.Name(parts).String() }

// String describes the configuration with its secrets redacted (storage
// options such as keys, tokens and SAS signatures; URI passwords), so that
// logging a Config does not leak them.
func (c Config) String() string {
	return fmt.Sprintf("Config{URI: %q, Mode: %v, SkipIndexBuild: %t, CommitRetries: %d, ReadOnly: %t, AutoVacuumEvery: %d, Namespace: %q, StorageOptions: %v}",
		storage.Redact(c.URI), c.Mode, c.SkipIndexBuild, c.CommitRetries, c.ReadOnly, c.AutoVacuumEvery, c.Namespace, storage.RedactOptions(c.StorageOptions))
}

// GoString is String: %#v must not print secrets either.
func (c Config) GoString() string { return c.String() }
