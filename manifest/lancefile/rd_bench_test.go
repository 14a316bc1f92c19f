package lancefile

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

func rdAllFiles(t testing.TB, dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "data", "*.lance"))
	return m
}

func TestReaderTimeTypes100k(t *testing.T) {
	if os.Getenv("RD_PROFILE") == "" {
		t.Skip()
	}
	dir := rdFixtureDir(t, "types-100000")
	for _, f := range rdAllFiles(t, dir) {
		r := rdOpenFile(t, f)
		for _, fl := range r.Schema().Fields {
			rec, err := r.ReadRange(context.Background(), []int32{fl.ID}, 0, r.NumRows())
			if err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		t.Logf("%s: %+v", filepath.Base(f), r.Stats())
	}
}

// TestReaderSurvey prints the page layouts and compressions of the fixtures'
// data files (RD_SURVEY=1): which encodings the peer tests above exercise.
func TestReaderSurvey(t *testing.T) {
	if os.Getenv("RD_SURVEY") == "" {
		t.Skip()
	}
	seen := map[string]int{}
	var walk func(prefix string, e interface{ ProtoReflect() protoreflect.Message })
	walk = func(prefix string, e interface{ ProtoReflect() protoreflect.Message }) {
		m := e.ProtoReflect()
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() != nil && !fd.IsList() {
				name := string(fd.Message().Name())
				seen[name]++
				walk(prefix+"/"+name, v.Message().Interface())
			}
			return true
		})
	}
	for _, name := range []string{"catalog-3", "catalog-5000", "catalog-100000", "types-1000", "types-100000"} {
		dir := rdFixtureDir(t, name)
		files := rdAllFiles(t, dir)
		files = append(files, rdAllFiles(t, filepath.Join(dir, "__manifest"))...)
		for _, f := range files {
			r := rdOpenFile(t, f)
			for c := 0; c < r.NumColumns(); c++ {
				ci, err := r.column(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				for _, pg := range ci.pages {
					walk("", pg.layout)
					if mb := pg.layout.GetMiniBlockLayout(); mb != nil && mb.Dictionary != nil {
						seen["miniblock-dictionary:"+encName(mb.Dictionary)+"/indices:"+encName(mb.ValueCompression)]++
					}
					if fz := pg.layout.GetFullZipLayout(); fz != nil {
						seen["fullzip:"+encName(fz.ValueCompression)]++
					}
				}
			}
		}
	}
	t.Logf("%v", seen)
}
