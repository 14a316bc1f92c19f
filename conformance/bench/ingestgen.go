package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The ingest suite's rows: what an application loads (an id, a person's
// name, an amount, one of four categories, a date), the same in every run
// (seeded), so runs on different days and all three sides load the same
// bytes.
const (
	ingestSeed = 18
	// ingestChunk is the rows of one generated chunk: one Parquet row group
	// (about what DuckDB and pyarrow write) and one Arrow IPC record batch.
	ingestChunk = 131072
	// ingestEpochDay is 2020-01-01 as days since 1970-01-01; dates span
	// seven years from it.
	ingestEpochDay = 18262
	ingestDays     = 2557
)

// ingestDDL is lancecat's (and DuckDB's, which reads VARCHAR(n) as VARCHAR)
// table; the Arrow schema below is the same columns as Lance stores them.
const ingestDDL = "CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(64), score DOUBLE, category VARCHAR(16), day DATE)"

var ingestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "category", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
}, nil)

var (
	ingestFirst = strings.Fields(`James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth
	William Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy
	Matthew Betty Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily Paul Donna
	Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah Timothy Stephanie Ronald
	Rebecca Jason Sharon Edward Laura Jeffrey Cynthia Ryan Amy Jacob Kathleen Gary Angela Nicholas
	Shirley Eric Brenda Jonathan Emma Stephen Anna Larry Pamela Justin Nicole Scott Samantha Brandon
	Katherine Wei Yuki Aarav Fatima Mateo Sofia Lukas Chloe Olga Kwame Ingrid Pedro Amara Hiroshi Leila`)
	ingestLast = strings.Fields(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez
	Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White
	Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill
	Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts O'Brien O'Neil
	Smith-Jones Müller Schmidt Rossi Kowalski Novak Tanaka Sato Kim Park Chen Wang Singh Patel Okafor
	Mensah Haddad Silva Santos Dubois Laurent Jansen Larsen Nielsen Virtanen Ivanova Petrov Yilmaz`)
	// ingestCategories and their weights (percent): skewed, as real ones.
	ingestCategories = []string{"books", "music", "games", "tools"}
	ingestWeights    = []int{40, 30, 20, 10}
)

// ingestRow is one generated row.
type ingestRow struct {
	ID       int64
	Name     string
	Score    float64
	Category string
	Day      int32 // days since 1970-01-01
}

// ingestGen generates the suite's rows in order: row i is the same in every
// run and every prefix is the first rows of a longer run.
type ingestGen struct {
	r    *rand.Rand
	next int64
}

func newIngestGen() *ingestGen { return &ingestGen{r: rand.New(rand.NewSource(ingestSeed))} }

func (g *ingestGen) row() ingestRow {
	g.next++
	w := g.r.Intn(100)
	cat := 0
	for w >= ingestWeights[cat] {
		w -= ingestWeights[cat]
		cat++
	}
	return ingestRow{
		ID:   g.next,
		Name: ingestFirst[g.r.Intn(len(ingestFirst))] + " " + ingestLast[g.r.Intn(len(ingestLast))],
		// Cents: two decimals, as an amount; the shortest decimal form
		// (the CSV's) reads back to the same float64.
		Score:    math.Round(g.r.Float64()*100000) / 100,
		Category: ingestCategories[cat],
		Day:      int32(ingestEpochDay + g.r.Intn(ingestDays)),
	}
}

// appendCSV appends the row as a CSV line (no field needs quoting: names
// have letters, spaces, hyphens and apostrophes only).
func (r ingestRow) appendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, r.ID, 10)
	b = append(b, ',')
	b = append(b, r.Name...)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.Score, 'f', -1, 64)
	b = append(b, ',')
	b = append(b, r.Category...)
	b = append(b, ',')
	b = time.Unix(int64(r.Day)*86400, 0).UTC().AppendFormat(b, time.DateOnly)
	return append(b, '\n')
}

// sqlValues appends the row as an INSERT ... VALUES tuple.
func (r ingestRow) sqlValues(b *strings.Builder) {
	fmt.Fprintf(b, "(%d,'%s',%s,'%s','%s')", r.ID, strings.ReplaceAll(r.Name, "'", "''"),
		strconv.FormatFloat(r.Score, 'f', -1, 64), r.Category, time.Unix(int64(r.Day)*86400, 0).UTC().Format(time.DateOnly))
}

// chunk builds the next n rows as one Arrow record batch.
func (g *ingestGen) chunk(n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, ingestSchema)
	defer b.Release()
	b.Reserve(n)
	id := b.Field(0).(*array.Int64Builder)
	name := b.Field(1).(*array.StringBuilder)
	score := b.Field(2).(*array.Float64Builder)
	cat := b.Field(3).(*array.StringBuilder)
	day := b.Field(4).(*array.Date32Builder)
	for i := 0; i < n; i++ {
		r := g.row()
		id.Append(r.ID)
		name.Append(r.Name)
		score.Append(r.Score)
		cat.Append(r.Category)
		day.Append(arrow.Date32(r.Day))
	}
	return b.NewRecordBatch()
}

// ingestFiles are the generated input files of one size.
type ingestFiles struct {
	CSV, Parquet, Arrows string
}

// writeIngestFiles writes the first rows of the generator as CSV (with a
// header line), as Parquet (Snappy, row groups of ingestChunk rows, as
// common writers make them) and as an Arrow IPC stream (record batches of
// ingestChunk rows; the peer's input) into dir. Only the CSV and Parquet
// files are wanted when arrows is false.
func writeIngestFiles(ctx context.Context, dir string, rows int, arrows bool) (ingestFiles, error) {
	files := ingestFiles{CSV: dir + "/ingest.csv", Parquet: dir + "/ingest.parquet"}
	if arrows {
		files.Arrows = dir + "/ingest.arrows"
	}
	csvF, err := os.Create(files.CSV)
	if err != nil {
		return files, err
	}
	defer csvF.Close()
	csvW := bufio.NewWriterSize(csvF, 1<<20)
	if _, err := csvW.WriteString("id,name,score,category,day\n"); err != nil {
		return files, err
	}
	pqF, err := os.Create(files.Parquet)
	if err != nil {
		return files, err
	}
	defer pqF.Close()
	pq, err := pqarrow.NewFileWriter(ingestSchema, pqF,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(ingestChunk)),
		pqarrow.DefaultWriterProps())
	if err != nil {
		return files, err
	}
	var ipcF *os.File
	var ipcW *ipc.Writer
	if arrows {
		if ipcF, err = os.Create(files.Arrows); err != nil {
			return files, err
		}
		defer ipcF.Close()
		ipcW = ipc.NewWriter(ipcF, ipc.WithSchema(ingestSchema))
	}
	g := newIngestGen()
	var line []byte
	for done := 0; done < rows; done += ingestChunk {
		if err := ctx.Err(); err != nil {
			return files, err
		}
		n := min(ingestChunk, rows-done)
		// One chunk feeds all three files; the CSV lines are read back out
		// of it, so the files cannot drift apart.
		rec := g.chunk(n)
		err := pq.Write(rec)
		if err == nil && ipcW != nil {
			err = ipcW.Write(rec)
		}
		if err == nil {
			for i := 0; i < n; i++ {
				line = csvRowAt(rec, i).appendCSV(line[:0])
				if _, err = csvW.Write(line); err != nil {
					break
				}
			}
		}
		rec.Release()
		if err != nil {
			return files, err
		}
	}
	if err := pq.Close(); err != nil {
		return files, err
	}
	if ipcW != nil {
		if err := ipcW.Close(); err != nil {
			return files, err
		}
		if err := ipcF.Close(); err != nil {
			return files, err
		}
	}
	if err := csvW.Flush(); err != nil {
		return files, err
	}
	return files, csvF.Close()
}

// csvRowAt reads row i of a chunk back as an ingestRow.
func csvRowAt(rec arrow.RecordBatch, i int) ingestRow {
	return ingestRow{
		ID:       rec.Column(0).(*array.Int64).Value(i),
		Name:     rec.Column(1).(*array.String).Value(i),
		Score:    rec.Column(2).(*array.Float64).Value(i),
		Category: rec.Column(3).(*array.String).Value(i),
		Day:      int32(rec.Column(4).(*array.Date32).Value(i)),
	}
}

// writeFragmentArrows writes the generator's first fragments*per rows as an
// Arrow IPC stream of one record batch per fragment (the peer adds each).
func writeFragmentArrows(ctx context.Context, path string, fragments, per int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := ipc.NewWriter(f, ipc.WithSchema(ingestSchema))
	g := newIngestGen()
	for i := 0; i < fragments; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := g.chunk(per)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}
