package app

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"regexp"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/lancecat/lancecat/catalog"
	lancecat "github.com/lancecat/lancecat/driver"
)

func TestEnsureTenantWithSQLMock(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mock.ExpectBegin()
	mock.ExpectExec(regexp.QuoteMeta("CREATE SCHEMA IF NOT EXISTS `acme.eu` COMMENT ?")).
		WithArgs("tenant acme.eu").WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec(regexp.QuoteMeta("CREATE TABLE IF NOT EXISTS `acme.eu`.events (")).
		WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectCommit()
	if err := EnsureTenant(context.Background(), db, "acme.eu"); err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureTenantRollsBackOnError(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mock.ExpectBegin()
	mock.ExpectExec("CREATE SCHEMA").WillReturnResult(sqlmock.NewResult(0, 0))
	// The driver's typed error, as the real driver would return it.
	denied := &lancecat.Error{Code: catalog.CodePermissionDenied, Message: "catalog is open read-only"}
	mock.ExpectExec("CREATE TABLE").WillReturnError(denied)
	mock.ExpectRollback()
	err = EnsureTenant(context.Background(), db, "acme")
	if !errors.Is(err, lancecat.ErrPermissionDenied) {
		t.Fatalf("error %v does not match ErrPermissionDenied", err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

func TestTablesWithSQLMock(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := regexp.QuoteMeta("SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = ?")
	mock.ExpectQuery(q).WithArgs("acme").WillReturnRows(sqlmock.NewRows([]string{"TABLE_NAME"}).AddRow("events").AddRow("users"))
	mock.ExpectQuery(q).WithArgs("ghost").WillReturnRows(sqlmock.NewRows([]string{"TABLE_NAME"}))
	got, err := Tables(context.Background(), db, "acme")
	if err != nil || !reflect.DeepEqual(got, []string{"events", "users"}) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Tables(context.Background(), db, "ghost"); !errors.Is(err, ErrUnknownTenant) {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

func TestDropTenantMapsNotFound(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mock.ExpectExec(regexp.QuoteMeta("DROP SCHEMA ghost CASCADE")).
		WillReturnError(&lancecat.Error{Code: catalog.CodeNamespaceNotFound, Message: "namespace \"ghost\" does not exist"})
	if err := DropTenant(context.Background(), db, "ghost"); !errors.Is(err, ErrUnknownTenant) {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

// TestAgainstRealDriver runs the same functions on a real in-memory catalog,
// so the SQL the mocks expect is SQL the driver accepts.
func TestAgainstRealDriver(t *testing.T) {
	db, err := sql.Open("lancecat", "memory://examples-sqlmock")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for i := 0; i < 2; i++ { // idempotent
		if err := EnsureTenant(ctx, db, "acme.eu"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Tables(ctx, db, "acme.eu")
	if err != nil || !reflect.DeepEqual(got, []string{"events"}) {
		t.Fatalf("%v %v", got, err)
	}
	if err := DropTenant(ctx, db, "acme.eu"); err != nil {
		t.Fatal(err)
	}
	if err := DropTenant(ctx, db, "acme.eu"); !errors.Is(err, ErrUnknownTenant) {
		t.Fatal(err)
	}
	if _, err := Tables(ctx, db, "acme.eu"); !errors.Is(err, ErrUnknownTenant) {
		t.Fatal(err)
	}
}
