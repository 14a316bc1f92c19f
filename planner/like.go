package planner

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lancecat/lancecat/planner/expr"
	"github.com/lancecat/lancecat/sqlparse"
	"github.com/lancecat/lancecat/sqltypes"
)

// LIKE matching in time linear in the subject for a given pattern and
// without recursion: the pattern compiles to a bit-parallel automaton
// (shift-and with self-loops for %), so a pathological pattern such as
// '%a%a%a...b' or a subject of megabytes costs O(len(subject) x
// len(pattern)/64) steps and O(len(pattern)/64) words, never backtracking.
// The common shapes (a literal, 'abc%', '%abc', '%abc%') skip the
// automaton. Characters are Unicode code points: _ is one character, not
// one byte (MySQL's utf8mb4); bytes that are not UTF-8 count as one
// character each.

// likeNoEscape is "no escape character" (ESCAPE ”).
const likeNoEscape = -1

// likeElem is one element of a compiled pattern.
type likeElem struct {
	kind byte // 'c' a character, '_' any one character, '%' any run
	r    rune
}

// likePattern is a compiled LIKE pattern.
type likePattern struct {
	elems []likeElem
	// Fast paths: kind 'x' exact literal, 'p' prefix, 's' suffix, 'c'
	// contains, 'a' anything (only %), 0 the automaton.
	fast byte
	lit  string
	// Kind 'm': the literal runs between the %s (two or more), and
	// whether the pattern starts (lead) and ends (trail) with %; lit is
	// their concatenation (for literalOnly).
	segs        []string
	lead, trail bool
	// The automaton: bit i of the state is set when elems[:i+1] can match
	// the subject read so far.
	words int
	any   []uint64          // bits of _ and % elements (match every character)
	star  []uint64          // bits of % elements
	chars map[rune][]uint64 // bits of the character elements, per character
	last  int               // index of the last element
}

// compileLike compiles pattern with escape character esc (likeNoEscape
// for none). An escape character escapes the next character; at the end of
// the pattern it stands for itself, as in MySQL.
func compileLike(pattern string, esc rune) *likePattern {
	p := &likePattern{}
	for i := 0; i < len(pattern); {
		r, n := utf8.DecodeRuneInString(pattern[i:])
		i += n
		switch {
		case r == esc && i < len(pattern):
			r, n = utf8.DecodeRuneInString(pattern[i:])
			i += n
			p.elems = append(p.elems, likeElem{kind: 'c', r: r})
		case r == '%':
			if len(p.elems) > 0 && p.elems[len(p.elems)-1].kind == '%' {
				continue // %% is %
			}
			p.elems = append(p.elems, likeElem{kind: '%'})
		case r == '_':
			p.elems = append(p.elems, likeElem{kind: '_'})
		default:
			p.elems = append(p.elems, likeElem{kind: 'c', r: r})
		}
	}
	p.chooseFast()
	p.buildAutomaton()
	return p
}

// chooseFast recognises patterns without _: with % only at the ends (a
// literal, prefix, suffix or contains test), or with % inside too (kind
// 'm': literal segments found in order, as '%special%requests%').
func (p *likePattern) chooseFast() {
	var b strings.Builder
	lead, trail := false, false
	var segs []string
	for i, e := range p.elems {
		switch {
		case e.kind == '_':
			return
		case e.kind == '%' && i == 0:
			lead = true
		case e.kind == '%' && i == len(p.elems)-1:
			trail = true
		case e.kind == '%':
			segs = append(segs, b.String())
			b.Reset()
		default:
			b.WriteRune(e.r)
		}
	}
	if segs != nil {
		p.segs = append(segs, b.String())
		p.lead, p.trail = lead, trail
		p.lit = strings.Join(p.segs, "")
		p.fast = 'm'
		return
	}
	p.lit = b.String()
	switch {
	case lead && trail && p.lit == "" || lead && len(p.elems) == 1:
		p.fast = 'a'
	case lead && trail:
		p.fast = 'c'
	case lead:
		p.fast = 's'
	case trail:
		p.fast = 'p'
	default:
		p.fast = 'x'
	}
}

// literalOnly reports whether the literal fast paths may compare bytes:
// they can when the subject is valid UTF-8 (then a byte match of valid
// UTF-8 starts and ends on character boundaries).
func (p *likePattern) literalOnly(s string) bool {
	return p.fast != 0 && utf8.ValidString(s) && utf8.ValidString(p.lit)
}

// match reports whether s matches the pattern. stop, when not nil, is
// called every few thousand characters; match gives up (false) once it
// returns true, so a cancelled statement does not finish a long match.
func (p *likePattern) match(s string, stop func() bool) bool {
	switch {
	case p.fast == 'a':
		return true
	case p.literalOnly(s):
		switch p.fast {
		case 'x':
			return s == p.lit
		case 'p':
			return strings.HasPrefix(s, p.lit)
		case 's':
			return strings.HasSuffix(s, p.lit)
		case 'm':
			return p.matchSegments(s)
		default:
			return strings.Contains(s, p.lit)
		}
	}
	if p.words == 0 {
		return s == "" // the empty pattern
	}
	cur := make([]uint64, p.words)
	next := make([]uint64, p.words)
	// Before any character only the empty prefix matched: a leading %
	// matches it too.
	if p.elems[0].kind == '%' {
		cur[0] = 1
	}
	first := true
	for i, n := 0, 0; i < len(s); i += n {
		var r rune
		r, n = utf8.DecodeRuneInString(s[i:])
		if stop != nil && i&0xfff == 0 && i > 0 && stop() {
			return false
		}
		mask := p.chars[r]
		if mask == nil {
			mask = p.any
		}
		carry := uint64(0)
		if first {
			carry = 1 // element 0 may start at the first character
			first = false
		}
		alive := uint64(0)
		for w := range cur {
			shifted := cur[w]<<1 | carry
			carry = cur[w] >> 63
			next[w] = shifted&mask[w] | cur[w]&p.star[w]
		}
		// A % element matches the empty run: it is set when its
		// predecessor is (no two % are adjacent, so one step suffices).
		carry = 0
		for w := range next {
			prev := next[w]<<1 | carry
			carry = next[w] >> 63
			next[w] |= prev & p.star[w]
			alive |= next[w]
		}
		if alive == 0 {
			return false
		}
		cur, next = next, cur
	}
	if first {
		// The empty subject: the pattern must be all %.
		return len(p.elems) == 1 && p.elems[0].kind == '%'
	}
	return cur[p.last/64]&(1<<(p.last%64)) != 0
}

// matchSegments matches valid UTF-8 s against a kind 'm' pattern: the
// first segment is a prefix unless the pattern starts with %, the last a
// suffix unless it ends with %, and each one between is found at its
// leftmost place after the one before (taking the leftmost leaves the
// most subject for the rest, so no other choice can succeed where it
// fails).
func (p *likePattern) matchSegments(s string) bool {
	segs := p.segs
	if !p.lead {
		if !strings.HasPrefix(s, segs[0]) {
			return false
		}
		s, segs = s[len(segs[0]):], segs[1:]
	}
	last := ""
	if !p.trail {
		last, segs = segs[len(segs)-1], segs[:len(segs)-1]
	}
	for _, seg := range segs {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return strings.HasSuffix(s, last)
}

// buildAutomaton builds the automaton for p.elems.
func (p *likePattern) buildAutomaton() {
	m := len(p.elems)
	p.words = (m + 63) / 64
	p.any = make([]uint64, p.words)
	p.star = make([]uint64, p.words)
	p.chars = map[rune][]uint64{}
	p.last = m - 1
	for i, e := range p.elems {
		w, bit := i/64, uint64(1)<<(i%64)
		switch e.kind {
		case '%':
			p.star[w] |= bit
			p.any[w] |= bit
		case '_':
			p.any[w] |= bit
		default:
			b := p.chars[e.r]
			if b == nil {
				b = make([]uint64, p.words)
				p.chars[e.r] = b
			}
			b[w] |= bit
		}
	}
	// A character's mask includes the elements that match any character.
	for _, b := range p.chars {
		for w := range b {
			b[w] |= p.any[w]
		}
	}
}

// likeMatch matches s against pattern with escape character esc (one
// byte; likeNoEscape for none).
func likeMatch(pattern, s string, esc rune) bool {
	return compileLike(pattern, esc).match(s, nil)
}

// like returns n's compiled pattern for pattern text pat, compiling it
// once per statement (per row only when the pattern changes per row).
func (env *rowEnv) like(n *sqlparse.Like, pat string) *likePattern {
	env.likeMu.Lock()
	defer env.likeMu.Unlock()
	if c, ok := env.likes[n]; ok && c.text == pat {
		return c.p
	}
	esc := rune(n.Escape)
	if n.Escape == 0 {
		esc = '\\' // ESCAPE '' keeps the backslash, as MariaDB does outside NO_BACKSLASH_ESCAPES
	}
	p := compileLike(pat, esc)
	if env.likes == nil {
		env.likes = map[*sqlparse.Like]compiledLike{}
	}
	env.likes[n] = compiledLike{text: pat, p: p}
	return p
}

// likeCache is rowEnv's cache of compiled LIKE patterns.
type likeCache struct {
	likeMu sync.Mutex
	likes  map[*sqlparse.Like]compiledLike
}

// compiledLike is a LIKE node's last compiled pattern.
type compiledLike struct {
	text string
	p    *likePattern
}

// likeValue is v LIKE p for non-NULL v and p (the tree walk's and the
// compiled LIKE's one body); a long subject's match checks the context.
func (env *rowEnv) likeValue(n *sqlparse.Like, v, p any) (any, error) {
	s, pat := toString(v), toString(p)
	if t, ok := v.(time.Time); ok {
		// A DATETIME keeps its time of day at midnight, as in MySQL's
		// text of it (toString cannot tell it from a DATE).
		if k := env.argInfo(n.X).Kind; k == sqltypes.KindDatetime || k == sqltypes.KindTimestamp {
			s = expr.FormatDatetime(t)
		}
	}
	if n.CaseInsensitive {
		s, pat = strings.ToLower(s), strings.ToLower(pat)
	}
	m := env.like(n, pat).match(s, env.cancelled)
	if len(s) > 4096 { // match may have stopped early
		if err := env.ctxErr(); err != nil {
			return nil, err
		}
	}
	return m != n.Not, nil
}
