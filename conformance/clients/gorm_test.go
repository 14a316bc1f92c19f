package clients

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// product is a GORM model with the tags the test covers: gorm.Model (ID
// primary key, timestamps, soft-delete DeletedAt), size, uniqueIndex,
// comment, a pointer (nullable) column and a time.Time.
type product struct {
	gorm.Model
	Code     string  `gorm:"size:32;uniqueIndex;comment:stock keeping unit"`
	Name     string  `gorm:"size:128"`
	Price    int64   `gorm:"comment:price in cents"`
	Note     *string `gorm:"size:255"`
	Released time.Time
}

// tag has an explicit non-auto primary key.
type tag struct {
	Slug  string `gorm:"primaryKey;size:64"`
	Label string `gorm:"size:64"`
}

func openGorm(t *testing.T, db *sql.DB) *gorm.DB {
	t.Helper()
	g, err := gorm.Open(mysql.New(mysql.Config{Conn: db, SkipInitializeWithVersion: true}),
		&gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		t.Fatalf("gorm.Open: %v", err)
	}
	return g
}

// TestGorm: GORM's MySQL dialect over a lancecat *sql.DB migrates models
// (twice: the second AutoMigrate finds nothing to change), creates rows in a
// batch with generated IDs, reads them with First/Where/Order/Find/Count,
// updates them, soft-deletes and sees the deleted row through Unscoped; the
// peer reads the resulting table.
func TestGorm(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sqlDB, root := openCatalog(t)
	g := openGorm(t, sqlDB).WithContext(ctx)

	for i := 0; i < 2; i++ {
		if err := g.AutoMigrate(&product{}, &tag{}); err != nil {
			t.Fatalf("AutoMigrate #%d: %v", i+1, err)
		}
	}
	if !g.Migrator().HasTable(&product{}) || !g.Migrator().HasColumn(&product{}, "Released") {
		t.Fatalf("migrator does not see products.released")
	}
	if !g.Migrator().HasIndex(&product{}, "Code") {
		t.Errorf("migrator does not see the unique index on code")
	}

	note := "limited"
	day := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ps := []product{
		{Code: "A1", Name: "anvil", Price: 1999, Released: day},
		{Code: "B2", Name: "bucket", Price: 499, Note: &note, Released: day.AddDate(0, 1, 0)},
		{Code: "C3", Name: "crate", Price: 2999, Released: day.AddDate(0, 2, 0)},
	}
	if err := g.Create(&ps).Error; err != nil {
		t.Fatalf("Create batch: %v", err)
	}
	for i, p := range ps {
		if p.ID == 0 {
			t.Errorf("row %d got no generated ID", i)
		}
	}
	if ps[0].ID == ps[1].ID || ps[1].ID == ps[2].ID {
		t.Errorf("generated IDs not distinct: %d %d %d", ps[0].ID, ps[1].ID, ps[2].ID)
	}
	if err := g.Create(&[]tag{{Slug: "tools", Label: "Tools"}, {Slug: "boxes", Label: "Boxes"}}).Error; err != nil {
		t.Fatalf("Create tags: %v", err)
	}

	var first product
	if err := g.First(&first, ps[1].ID).Error; err != nil {
		t.Fatalf("First: %v", err)
	}
	if first.Code != "B2" || first.Note == nil || *first.Note != "limited" || !first.Released.Equal(day.AddDate(0, 1, 0)) {
		t.Errorf("First = %+v", first)
	}
	var cheapFirst []product
	if err := g.Where("price < ?", 2500).Order("price desc").Find(&cheapFirst).Error; err != nil {
		t.Fatalf("Where/Order/Find: %v", err)
	}
	if got := codes(cheapFirst); !reflect.DeepEqual(got, []string{"A1", "B2"}) {
		t.Errorf("price < 2500 by price desc = %v, want [A1 B2]", got)
	}

	if err := g.Model(&ps[0]).Update("price", 2499).Error; err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := g.Model(&ps[2]).Updates(product{Name: "big crate", Note: &note}).Error; err != nil {
		t.Fatalf("Updates: %v", err)
	}
	if err := g.Delete(&ps[1]).Error; err != nil {
		t.Fatalf("soft Delete: %v", err)
	}
	var n int64
	if err := g.Model(&product{}).Count(&n).Error; err != nil || n != 2 {
		t.Errorf("Count after soft delete = %d, %v; want 2", n, err)
	}
	if err := g.Unscoped().Model(&product{}).Count(&n).Error; err != nil || n != 3 {
		t.Errorf("Unscoped Count = %d, %v; want 3", n, err)
	}
	if err := g.First(&product{}, ps[1].ID).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Errorf("First of the soft-deleted row: %v, want ErrRecordNotFound", err)
	}
	var deleted product
	if err := g.Unscoped().First(&deleted, ps[1].ID).Error; err != nil || !deleted.DeletedAt.Valid {
		t.Errorf("Unscoped First of the soft-deleted row = %+v, %v", deleted, err)
	}
	var live []product
	if err := g.Order("id").Find(&live).Error; err != nil {
		t.Fatal(err)
	}
	if got := codes(live); !reflect.DeepEqual(got, []string{"A1", "C3"}) {
		t.Errorf("live rows %v, want [A1 C3]", got)
	}
	if live[0].Price != 2499 || live[1].Name != "big crate" || live[1].Note == nil || live[1].Price != 2999 {
		t.Errorf("rows after Update/Updates: %+v", live)
	}
	// A duplicate code breaks the unique index.
	if err := g.Create(&product{Code: "A1", Name: "dup", Released: day}).Error; err == nil {
		t.Errorf("Create with a duplicate unique code succeeded")
	}

	// The peer sees both tables and reads the products GORM left.
	if got := peerTables(ctx, t, root, nil); !reflect.DeepEqual(got, []string{"products", "tags"}) {
		t.Errorf("peer lists %v, want [products tags]", got)
	}
	rows := peerQuery(ctx, t, root, nil, "products", "id", "code", "price", "deleted_at")
	var got []string
	for _, r := range rows {
		del := "live"
		if r["deleted_at"] != nil {
			del = "deleted"
		}
		got = append(got, jsonString(r["code"])+":"+jsonString(r["price"])+":"+del)
	}
	if want := []string{`"A1":2499:live`, `"B2":499:deleted`, `"C3":2999:live`}; !reflect.DeepEqual(got, want) {
		t.Errorf("peer reads products %v, want %v", got, want)
	}
}

func codes(ps []product) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Code)
	}
	return out
}
