package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"log/slog"
	"sync"

	"github.com/lancecat/lancecat/catalog"
)

// DriverName is the name the driver is registered under.
const DriverName = "lancecat"

func init() { sql.Register(DriverName, &Driver{}) }

// Driver is the database/sql driver. It implements driver.DriverContext:
// sql.Open creates one Connector per call.
type Driver struct{}

var (
	_ driver.Driver        = (*Driver)(nil)
	_ driver.DriverContext = (*Driver)(nil)
)

// Open opens one connection (database/sql calls it only when the driver is
// used without a connector). The connection holds its own reference to the
// shared catalog handle.
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := c.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	cn := conn.(*Conn)
	cn.ownConnector = c.(*Connector)
	return cn, nil
}

// OpenConnector parses the DSN; it does no I/O.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return NewConnector(cfg)
}

// Connector opens connections to one catalog; it implements
// driver.Connector and io.Closer (sql.DB.Close closes it). Its connections
// share one catalog handle, opened by the first Connect and released by
// Close.
type Connector struct {
	cfg Config

	mu     sync.Mutex
	h      *handle
	closed bool
}

var _ driver.Connector = (*Connector)(nil)

// NewConnector validates cfg and returns a Connector for sql.OpenDB. It does
// no I/O: the catalog is opened by the first connection.
func NewConnector(cfg Config) (*Connector, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := cfg
	c.Namespace = append([]string(nil), cfg.Namespace...)
	if cfg.StorageOptions != nil {
		c.StorageOptions = make(map[string]string, len(cfg.StorageOptions))
		for k, v := range cfg.StorageOptions {
			c.StorageOptions[k] = v
		}
	}
	return &Connector{cfg: c}, nil
}

// Config returns the connector's configuration.
func (c *Connector) Config() Config { return c.cfg }

// logger is where recovered panics are logged (Config.Logger, else
// slog.Default() at the time of the panic).
func (c *Connector) logger() *slog.Logger {
	if c.cfg.Logger != nil {
		return c.cfg.Logger
	}
	return slog.Default()
}

// Driver returns the lancecat driver.
func (c *Connector) Driver() driver.Driver { return &Driver{} }

func (c *Connector) catalogHandle(ctx context.Context) (*handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errNoPos(&catalog.Error{Code: catalog.CodeInvalidInput, Message: "connector is closed"})
	}
	if c.h == nil {
		h, err := acquire(ctx, c.cfg)
		if err != nil {
			return nil, errNoPos(err)
		}
		c.h = h
	}
	return c.h, nil
}

// Connect opens a connection (a session on the shared catalog).
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, err := c.catalogHandle(ctx)
	if err != nil {
		return nil, err
	}
	return newConn(c, h), nil
}

// Close releases the catalog handle (closing the catalog if no other
// connector uses it). Connections still open fail afterwards.
func (c *Connector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.h != nil {
		c.h.release()
		c.h = nil
	}
	return nil
}

func (c *Connector) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
