package storage

import (
	"fmt"
	"testing"
)

// BenchmarkLocalPutIfAbsent measures a commit-sized create-if-absent on local disk (temp file,
// fsync, link, unlink, directory fsync).
func BenchmarkLocalPutIfAbsent(b *testing.B) {
	s, err := Open(ctx, b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	data := randomBytes(4<<10, 5)
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		if err := s.PutIfAbsent(ctx, fmt.Sprintf("_versions/%020d.manifest", i), data); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkReadRange measures 64 KiB ranged reads from a 16 MiB object.
func BenchmarkReadRange(b *testing.B) {
	for _, uri := range []string{"local", "memory://"} {
		b.Run(uri, func(b *testing.B) {
			if uri == "local" {
				uri = b.TempDir()
			}
			s, err := Open(ctx, uri, Options{})
			if err != nil {
				b.Fatal(err)
			}
			const size, chunk = 16 << 20, 64 << 10
			if err := s.Put(ctx, "data.lance", randomBytes(size, 6)); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(chunk)
			off := int64(0)
			for b.Loop() {
				if _, err := s.ReadRange(ctx, "data.lance", off, chunk); err != nil {
					b.Fatal(err)
				}
				off = (off + 7*chunk) % (size - chunk)
			}
		})
	}
}
