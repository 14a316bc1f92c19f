// Package driver is the lancecat database/sql driver, registered as
// "lancecat":
//
//	import _ "github.com/lancecat/lancecat/driver"
//
//	db, err := sql.Open("lancecat", "file:///data/lake")
//
// or, from a Config:
//
//	c, err := driver.NewConnector(driver.Config{URI: "/data/lake"})
//	db := sql.OpenDB(c)
//
// # URIs
//
// The data source name is a catalog root URI followed by optional query
// parameters:
//
//	/data/lake, ./lake              a local directory (created on first write)
//	file:///data/lake               the same, as a URI
//	memory://name                   an in-process catalog (Lance bytes in
//	                                memory), shared by every sql.DB open on
//	                                the same name and discarded when the last
//	                                one is closed; memory:// alone is private
//	s3://bucket/prefix, gs://bucket/prefix, az://container/prefix
//
// Query parameters (options):
//
//	mode=compatibility|manifest|directory
//	        which catalog layout is served: the `__manifest` table plus root
//	        "<name>.lance" directories (compatibility, the default, as
//	        lancedb.connect), the `__manifest` table only (manifest), or
//	        directory listing only (directory: a flat root namespace).
//	build_indices=true|false
//	        keep the `__manifest` scalar indices (default true): small
//	        changes are incremental and leave them in place, full rewrites
//	        rebuild them; false rewrites the table without indices on every
//	        commit.
//	commit_retries=N
//	        retries of a catalog commit after a conflict with another writer
//	        (default 20; 0 means the default; -1 none).
//	auto_vacuum_every=K
//	        after every K catalog commits of the handle (default 20), vacuum
//	        the `__manifest` table: delete the files of versions superseded
//	        more than a minute ago, keeping every version file (see
//	        catalog.DefaultAutoVacuumOptions for why readers, the reference
//	        included, are safe); 0 never does (CALL vacuum_catalog still
//	        works).
//	lock_lease=D
//	        how long an advisory lock (GET_LOCK) of a connection that stopped
//	        renewing it — its process crashed — keeps others waiting
//	        (default 30s, at least 1s). Holders renew every third of it.
//	durability=full|none
//	        full (the default): each commit's files are fsynced together,
//	        in parallel, before the version file that publishes them is
//	        created (itself durably), so a commit that returned survives a
//	        crash of the machine. none: no fsync at all, as the reference
//	        implementation; commits stay atomic, but a power loss can lose
//	        the latest ones. Object stores ignore it (a PUT is durable).
//	read_only=true|false
//	        refuse every change (PermissionDenied).
//	load_data_dir=/path
//	        the local directory LOAD DATA [LOCAL] INFILE may read files from
//	        (as MySQL's secure_file_priv; default none: LOAD DATA is refused
//	        with PermissionDenied).
//	import_sources=s3://bucket/dir,gs://bucket2
//	        the object-store URI prefixes (comma-separated, whole path
//	        segments) IMPORT INTO may read, opened with the storage options
//	        below (default none: IMPORT INTO from a URI is refused with
//	        PermissionDenied). A local catalog takes storage.* options for
//	        them.
//	namespace=a.b
//	        the current namespace a connection starts in (default the root).
//	storage.KEY=VALUE
//	        an object-store option (LanceDB's storageOptions names, e.g.
//	        storage.region=us-east-1, storage.endpoint=http://...).
//	KEY=VALUE (any other key)
//	        for s3://, gs:// and az:// URIs, also an object-store option
//	        (so ?region=us-east-1 works as in LanceDB); for local paths and
//	        memory:// an unknown key is an error (it would be a typo).
//
// Parameter values are URL-decoded. A local path containing '?' must be
// written as a file:// URI with the '?' percent-encoded.
//
// Every connection (and every sql.DB) open on the same normalized URI and
// options shares one catalog handle; the handle is closed when the last
// Connector using it is closed (sql.DB.Close).
//
// # Sessions
//
// USE changes the current namespace of one connection. database/sql hands
// pooled connections out again after resetting them, so USE (and a
// transaction opened with a BEGIN statement) lasts for one Exec/Query call
// (whose text may hold several statements), one *sql.Conn, or one *sql.Tx.
// Set ?namespace= for a default.
//
// # Statements and arguments
//
// One Exec or Query may carry a script of several statements separated by
// ';'. They run in order and the script stops at the first failing
// statement; the error names that statement and its line and column in the
// text. Query returns the result set of every statement that produces one,
// in order (Rows.NextResultSet); a script with none returns an empty result.
//
// Arguments bind to '?' (in order) and to :name / @name placeholders
// (sql.Named; with no named argument @name is left as a user variable, which
// LOAD DATA's column list uses) as SQL literals (strings quoted and escaped by
// sqlparse.Bind); a bound value can never change the structure of a
// statement, and identifiers cannot be bound. When a bound value is longer
// or shorter than its placeholder, column numbers reported for the rest of
// that line refer to the text after binding.
//
// # Transactions
//
// db.BeginTx (or BEGIN / START TRANSACTION ... COMMIT in SQL) collects the
// catalog changes of the transaction and COMMIT applies them as one atomic
// `__manifest` commit; ROLLBACK discards them. Errors of the collected
// changes (a table that already exists, ...) are reported by COMMIT, which
// then applies nothing. Reads inside a transaction see the committed
// catalog. Statements that cannot join an atomic catalog commit (ALTER TABLE
// column changes, CALL vacuum_catalog) are refused inside a transaction.
// The default and the four SQL isolation levels are accepted (as MySQL
// accepts them) and all behave alike: each statement reads the latest
// committed versions (a snapshot per statement), catalog changes commit
// atomically; sql.LevelSnapshot, LevelLinearizable and LevelWriteCommitted
// are refused. sql.TxOptions.ReadOnly gives a transaction that refuses changes.
//
// # Types
//
// CREATE TABLE maps SQL types to the Arrow types of the Lance schema:
//
//	BOOLEAN, BOOL                     bool
//	TINYINT/SMALLINT/INT/BIGINT       int8/int16/int32/int64
//	  ... UNSIGNED                    uint8/uint16/uint32/uint64
//	FLOAT / DOUBLE                    float32 / float64
//	DECIMAL(p,s) (p <= 38)            decimal128(p, s)
//	CHAR, VARCHAR, TEXT               utf8
//	BINARY, VARBINARY, BLOB           binary
//	DATE                              date32
//	TIME[(p)]                         time64[us] (p <= 6) or time64[ns]
//	DATETIME[(p)]                     timestamp without zone; unit s/ms/us/ns for p 0/1-3/4-6/7-9
//	TIMESTAMP[(p)]                    the same with time zone "UTC"
//	JSON                              large_binary with field metadata
//	                                  ARROW:extension:name = "lance.json" (Lance's json type)
//	VECTOR(n), VECTOR<FLOAT>(n)       fixed_size_list<float32>[n]
//
// NOT NULL makes the field non-nullable; PRIMARY KEY (columns) sets the field
// metadata "lance-schema:unenforced-primary-key:position" (0-based key
// position) and NOT NULL, and lancecat's writes refuse a duplicate key
// (MySQL error 1062, as for UNIQUE columns); a column COMMENT is field metadata "comment"; a
// table COMMENT is the table property "comment". DESCRIBE and SHOW CREATE
// TABLE print types SQL cannot spell in an Arrow-like spelling (see
// sqltypes.Name): STRUCT<a BIGINT, b TEXT NOT NULL>, LIST<TEXT>,
// LARGE_LIST<...>, LARGE_TEXT, LARGE_BLOB, FIXED_SIZE_LIST<DOUBLE>[4],
// FLOAT16, ...; information_schema.columns also has ARROW_TYPE and
// FIELD_METADATA.
//
// # Errors
//
// Every error is an *Error carrying the Lance namespace error code
// (Error.Code, named by Code.String(): "TableNotFound", ...), a message,
// and the failing statement's position. Match kinds with errors.Is and the
// exported sentinels (ErrTableNotFound, ErrNamespaceNotFound, ...), which are
// the catalog's own.
//
// # Warnings
//
// A statement that does what MySQL does with a warning (1/0 is NULL, 'abc'
// + 1 is 1, GROUP_CONCAT cuts its result, INSERT IGNORE skips a duplicate
// key) succeeds, and its notes and warnings, with the error of a statement
// that failed, are kept on its connection as MySQL's diagnostics area.
// database/sql has no warnings API: read them with SHOW WARNINGS (SHOW
// ERRORS, SHOW COUNT(*) WARNINGS, SELECT @@warning_count) on the same
// connection, which a *sql.DB pool does not promise between two calls, so
// take a *sql.Conn:
//
//	conn, _ := db.Conn(ctx)
//	defer conn.Close()
//	conn.ExecContext(ctx, "INSERT IGNORE INTO t VALUES (1), (1)")
//	rows, _ := conn.QueryContext(ctx, "SHOW WARNINGS") // Level, Code, Message
//
// As in MariaDB, the next statement that names a table or raises a
// condition replaces them (SELECT 1, SET and SHOW WARNINGS itself do not);
// a statement keeps the first @@max_error_count (64) and counts the rest.
// The warnings of a query's rows are complete once its rows are read. A
// connection the pool hands out again starts with none (ResetSession).
package driver
