// Package tpch generates TPC-H data (a compact, seeded dbgen), loads it into
// lancecat and into MariaDB, and holds the 22 queries in MySQL dialect with
// the specification's default substitution parameters. tpch_test.go runs
// them in both engines and compares the answers.
//
// The generator follows the specification's clause 4.2.3: the eight tables,
// their cardinalities at a scale factor (fractional ones too: SF 0.01 has 100
// suppliers, 2,000 parts, 1,500 customers and 15,000 orders), the key
// relationships (sparse order keys, a third of the customers without orders,
// the four suppliers of a part), the value distributions (dates, prices,
// discounts, flags, phone numbers, part names from the 92 colours, types and
// containers from their syllables) and comments drawn from dbgen's text
// grammar, with the suppliers' "Customer ... Complaints" comments. So the
// default substitution parameters select rows as they do in dbgen's data.
// Its rows are not dbgen's byte for byte (a different random stream); the
// same scale factor and seed always give the same rows.
//
// It is a module of its own (like conformance/mariadb), so the Go MySQL
// driver never becomes a dependency of the lancecat driver module.
package tpch

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Table is one TPC-H table: its name and its DDL (valid in MariaDB and
// lancecat).
type Table struct {
	Name string
	DDL  string
}

// Tables lists the tables in load order.
var Tables = []Table{
	{"region", `CREATE TABLE region (
  r_regionkey INT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152),
  PRIMARY KEY (r_regionkey))`},
	{"nation", `CREATE TABLE nation (
  n_nationkey INT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INT NOT NULL, n_comment VARCHAR(152),
  PRIMARY KEY (n_nationkey))`},
	{"supplier", `CREATE TABLE supplier (
  s_suppkey INT NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey INT NOT NULL,
  s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL,
  PRIMARY KEY (s_suppkey))`},
	{"part", `CREATE TABLE part (
  p_partkey INT NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL,
  p_type VARCHAR(25) NOT NULL, p_size INT NOT NULL, p_container CHAR(10) NOT NULL,
  p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL,
  PRIMARY KEY (p_partkey))`},
	{"partsupp", `CREATE TABLE partsupp (
  ps_partkey INT NOT NULL, ps_suppkey INT NOT NULL, ps_availqty INT NOT NULL,
  ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL,
  PRIMARY KEY (ps_partkey, ps_suppkey))`},
	{"customer", `CREATE TABLE customer (
  c_custkey INT NOT NULL, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL, c_nationkey INT NOT NULL,
  c_phone CHAR(15) NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL,
  c_comment VARCHAR(117) NOT NULL,
  PRIMARY KEY (c_custkey))`},
	{"orders", `CREATE TABLE orders (
  o_orderkey INT NOT NULL, o_custkey INT NOT NULL, o_orderstatus CHAR(1) NOT NULL,
  o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL,
  o_clerk CHAR(15) NOT NULL, o_shippriority INT NOT NULL, o_comment VARCHAR(79) NOT NULL,
  PRIMARY KEY (o_orderkey))`},
	{"lineitem", `CREATE TABLE lineitem (
  l_orderkey INT NOT NULL, l_partkey INT NOT NULL, l_suppkey INT NOT NULL, l_linenumber INT NOT NULL,
  l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL,
  l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL,
  l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL,
  l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber))`},
}

// dist is a weighted word list.
type dist []struct {
	word   string
	weight int
}

func (d dist) pick(r *rand.Rand) string {
	total := 0
	for _, e := range d {
		total += e.weight
	}
	n := r.IntN(total)
	for _, e := range d {
		if n < e.weight {
			return e.word
		}
		n -= e.weight
	}
	return d[len(d)-1].word
}

var (
	regionNames = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	nationNames = []struct {
		name   string
		region int
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0},
		{"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4},
		{"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1},
		{"CHINA", 2}, {"ROMANIA", 3}, {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3},
		{"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	typeS1      = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2      = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3      = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	containerS1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerS2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments    = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities  = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructs   = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes   = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// The specification's dates, as days since 1970-01-01.
var (
	startDate   = days(1992, 1, 1)
	currentDate = days(1995, 6, 17)
	endDate     = days(1998, 12, 31)
)

func days(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func dateText(d int) string {
	return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
}

// cents formats an amount in cents as DECIMAL(15,2) text.
func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Counts are the row counts of the scaled tables at a scale factor.
type Counts struct {
	Supplier, Part, Customer, Orders int
}

// CountsAt gives the cardinalities at scale factor sf (spec 4.2.5).
func CountsAt(sf float64) Counts {
	n := func(base float64) int {
		v := int(base*sf + 0.5)
		if v < 1 {
			v = 1
		}
		return v
	}
	return Counts{Supplier: n(10000), Part: n(200000), Customer: n(150000), Orders: n(1500000)}
}

// gen holds one generation's state.
type gen struct {
	sf   float64
	seed uint64
	n    Counts
	pool string // dbgen's text pool, generated from its grammar
}

func (g *gen) rng(table int) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed, uint64(table)*0x9e3779b97f4a7c15+1))
}

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// text is a comment of a length uniform in [lo, hi] (spec 4.2.2.10: a
// substring of the text pool at a random offset).
func (g *gen) text(r *rand.Rand, lo, hi int) string {
	n := between(r, lo, hi)
	off := r.IntN(len(g.pool) - n)
	return strings.TrimSpace(g.pool[off : off+n])
}

// vstring is a random string of length uniform in [lo, hi] over dbgen's
// alphabet (addresses).
func vstring(r *rand.Rand, lo, hi int) string {
	const alpha = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,"
	b := make([]byte, between(r, lo, hi))
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return strings.TrimSpace(string(b))
}

func phone(r *rand.Rand, nation int) string {
	return fmt.Sprintf("%02d-%03d-%03d-%04d", nation+10, between(r, 100, 999), between(r, 100, 999), between(r, 1000, 9999))
}

// textPool builds the text pool from dbgen's grammar (spec 4.2.2.14).
func textPool(r *rand.Rand, size int) string {
	var b strings.Builder
	phrase := func(kind byte) {
		switch kind {
		case 'N':
			for _, c := range nounPhrases.pick(r) {
				switch c {
				case 'N':
					b.WriteString(nouns.pick(r))
				case 'J':
					b.WriteString(adjectives.pick(r))
				case 'D':
					b.WriteString(adverbs.pick(r))
				default:
					b.WriteRune(c)
				}
			}
		case 'V':
			for _, c := range verbPhrases.pick(r) {
				switch c {
				case 'V':
					b.WriteString(verbs.pick(r))
				case 'X':
					b.WriteString(auxiliaries.pick(r))
				case 'D':
					b.WriteString(adverbs.pick(r))
				default:
					b.WriteRune(c)
				}
			}
		case 'P':
			b.WriteString(prepositions.pick(r))
			b.WriteString(" the ")
			for _, c := range nounPhrases.pick(r) {
				switch c {
				case 'N':
					b.WriteString(nouns.pick(r))
				case 'J':
					b.WriteString(adjectives.pick(r))
				case 'D':
					b.WriteString(adverbs.pick(r))
				default:
					b.WriteRune(c)
				}
			}
		}
	}
	for b.Len() < size {
		tmpl := strings.Fields(grammar.pick(r))
		for i, k := range tmpl {
			if k == "T" {
				b.WriteString(terminators.pick(r))
				break
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			phrase(k[0])
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// Generate writes every table as a tab-separated file dir/<name>.tsv (MySQL's
// LOAD DATA defaults: fields by tab, lines by newline) at scale factor sf from
// seed, and returns the row count of each table.
func Generate(dir string, sf float64, seed uint64) (map[string]int, error) {
	g := &gen{sf: sf, seed: seed, n: CountsAt(sf)}
	g.pool = textPool(g.rng(99), 1<<21)
	rows := map[string]int{}
	for i, t := range Tables {
		f, err := os.Create(filepath.Join(dir, t.Name+".tsv"))
		if err != nil {
			return nil, fmt.Errorf("tpch: %w", err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		n, err := g.table(i, t.Name, w)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("tpch: writing %s: %w", t.Name, err)
		}
		rows[t.Name] = n
	}
	return rows, nil
}

// Path is the file Generate writes for table name.
func Path(dir, name string) string { return filepath.Join(dir, name+".tsv") }

func line(w *bufio.Writer, fields ...string) {
	for i, f := range fields {
		if i > 0 {
			w.WriteByte('\t')
		}
		w.WriteString(f)
	}
	w.WriteByte('\n')
}

func itoa(i int) string { return fmt.Sprint(i) }

// retailPrice is p_retailprice in cents (spec 4.2.3).
func retailPrice(partkey int) int64 {
	return int64(90000 + (partkey/10)%20001 + 100*(partkey%1000))
}

// partSupplier is the suppkey of the i-th (0..3) supplier of a part.
func (g *gen) partSupplier(partkey, i int) int {
	s := g.n.Supplier
	return (partkey+(i*(s/4+(partkey-1)/s)))%s + 1
}

func (g *gen) table(idx int, name string, w *bufio.Writer) (int, error) {
	r := g.rng(idx)
	switch name {
	case "region":
		for k, n := range regionNames {
			line(w, itoa(k), n, g.text(r, 31, 115))
		}
		return len(regionNames), nil
	case "nation":
		for k, n := range nationNames {
			line(w, itoa(k), n.name, itoa(n.region), g.text(r, 31, 114))
		}
		return len(nationNames), nil
	case "supplier":
		// Spec: SF*5 suppliers complain and SF*5 recommend (at least one
		// each here, so that Q16's filter has something to exclude).
		special := int(5*g.sf + 0.5)
		if special < 1 {
			special = 1
		}
		kind := map[int]string{}
		for len(kind) < 2*special && len(kind) < g.n.Supplier {
			k := between(r, 1, g.n.Supplier)
			if _, ok := kind[k]; ok {
				continue
			}
			if len(kind) < special {
				kind[k] = "Complaints"
			} else {
				kind[k] = "Recommends"
			}
		}
		for k := 1; k <= g.n.Supplier; k++ {
			nation := r.IntN(25)
			comment := g.text(r, 25, 100)
			if word, ok := kind[k]; ok {
				mid := "Customer " + g.text(r, 1, 10) + " " + word
				at := r.IntN(max(1, len(comment)-len(mid)))
				comment = strings.TrimSpace(comment[:at] + mid + comment[min(len(comment), at+len(mid)):])
			}
			line(w, itoa(k), fmt.Sprintf("Supplier#%09d", k), vstring(r, 10, 40), itoa(nation),
				phone(r, nation), cents(int64(between(r, -99999, 999999))), comment)
		}
		return g.n.Supplier, nil
	case "part":
		for k := 1; k <= g.n.Part; k++ {
			var names []string
			for len(names) < 5 {
				c := colors.pick(r)
				dup := false
				for _, n := range names {
					dup = dup || n == c
				}
				if !dup {
					names = append(names, c)
				}
			}
			m := between(r, 1, 5)
			line(w, itoa(k), strings.Join(names, " "), fmt.Sprintf("Manufacturer#%d", m),
				fmt.Sprintf("Brand#%d%d", m, between(r, 1, 5)),
				typeS1[r.IntN(6)]+" "+typeS2[r.IntN(5)]+" "+typeS3[r.IntN(5)],
				itoa(between(r, 1, 50)), containerS1[r.IntN(5)]+" "+containerS2[r.IntN(8)],
				cents(retailPrice(k)), g.text(r, 5, 22))
		}
		return g.n.Part, nil
	case "partsupp":
		for k := 1; k <= g.n.Part; k++ {
			for i := 0; i < 4; i++ {
				line(w, itoa(k), itoa(g.partSupplier(k, i)), itoa(between(r, 1, 9999)),
					cents(int64(between(r, 100, 100000))), g.text(r, 49, 198))
			}
		}
		return 4 * g.n.Part, nil
	case "customer":
		for k := 1; k <= g.n.Customer; k++ {
			nation := r.IntN(25)
			line(w, itoa(k), fmt.Sprintf("Customer#%09d", k), vstring(r, 10, 40), itoa(nation),
				phone(r, nation), cents(int64(between(r, -99999, 999999))), segments[r.IntN(5)],
				g.text(r, 29, 116))
		}
		return g.n.Customer, nil
	case "orders":
		return g.orders(w, nil)
	case "lineitem":
		return g.orders(nil, w)
	}
	return 0, fmt.Errorf("no table %s", name)
}

// orders generates the orders and their lines (one random stream, so both
// tables agree); it writes the orders to ow and the lines to lw (either may
// be nil) and returns the number of rows written.
func (g *gen) orders(ow, lw *bufio.Writer) (int, error) {
	r := g.rng(100)
	clerks := max(1, int(g.sf*1000+0.5))
	written := 0
	var lines [][]string
	for i := 0; i < g.n.Orders; i++ {
		key := (i/8)*32 + i%8 + 1
		cust := between(r, 1, g.n.Customer)
		for cust%3 == 0 && g.n.Customer > 2 {
			cust = between(r, 1, g.n.Customer)
		}
		date := between(r, startDate, endDate-151)
		priority := priorities[r.IntN(5)]
		clerk := fmt.Sprintf("Clerk#%09d", between(r, 1, clerks))
		comment := g.text(r, 19, 78)
		nl := between(r, 1, 7)
		var total int64
		fs, os := 0, 0
		lines = lines[:0]
		for ln := 1; ln <= nl; ln++ {
			part := between(r, 1, g.n.Part)
			supp := g.partSupplier(part, r.IntN(4))
			qty := between(r, 1, 50)
			ext := int64(qty) * retailPrice(part)
			disc := between(r, 0, 10)
			tax := between(r, 0, 8)
			ship := date + between(r, 1, 121)
			commit := date + between(r, 30, 90)
			receipt := ship + between(r, 1, 30)
			flag := "N"
			if receipt <= currentDate {
				flag = []string{"R", "A"}[r.IntN(2)]
			}
			status := "F"
			if ship > currentDate {
				status = "O"
				os++
			} else {
				fs++
			}
			instruct := instructs[r.IntN(4)]
			mode := shipModes[r.IntN(7)]
			lc := g.text(r, 10, 43)
			total += ext * int64(100-disc) * int64(100+tax) / 10000
			if lw != nil {
				lines = append(lines, []string{itoa(key), itoa(part), itoa(supp), itoa(ln), itoa(qty) + ".00",
					cents(ext), cents(int64(disc)), cents(int64(tax)), flag, status, dateText(ship),
					dateText(commit), dateText(receipt), instruct, mode, lc})
			}
		}
		status := "P"
		if os == 0 {
			status = "F"
		} else if fs == 0 {
			status = "O"
		}
		if ow != nil {
			line(ow, itoa(key), itoa(cust), status, cents(total), dateText(date), priority, clerk, "0", comment)
			written++
		}
		for _, l := range lines {
			line(lw, l...)
			written++
		}
	}
	return written, nil
}
