package tournament

import (
	"math/bits"
	"slices"
)

// edge is a candidate pair of a matching problem: vertices i and j, weight
// w (larger is better).
type edge struct {
	i, j int
	w    int64
}

// wedge is an edge of a wide weight.
type wedge struct {
	i, j int
	w    wide
}

// maxWeightMatching returns a maximum-cardinality matching of n vertices
// that has the largest total weight among those of maximum cardinality:
// mate[v] is v's partner, or -1. It is Edmonds' blossom algorithm with
// the O(n^3) primal-dual bookkeeping of Galil (1986), as written by Joris
// van Rantwijk in mwmatching.py; weights are doubled so that every dual
// variable stays an integer.
func maxWeightMatching(n int, edges []edge) []int {
	wedges := make([]wedge, len(edges))
	for k, e := range edges {
		w := wideOf(uint64(e.w))
		if e.w < 0 {
			for i := 1; i < wideWords; i++ {
				w[i] = ^uint64(0)
			}
		}
		wedges[k] = wedge{e.i, e.j, w}
	}
	return matchWeighted(n, wedges, true)
}

// matchWeighted returns a maximum-weight matching of n vertices; with
// maxCard, the heaviest of the maximum-cardinality matchings. mate[v] is
// v's partner, or -1. The arithmetic runs on as many words of the wide
// weights as the largest weight needs. It uses edges as its own (the
// weights are doubled in place).
func matchWeighted(n int, edges []wedge, maxCard bool) []int {
	mate := make([]int, n)
	for i := range mate {
		mate[i] = -1
	}
	if n == 0 || len(edges) == 0 {
		return mate
	}
	m := &matcher{n: n, edges: edges, maxCard: maxCard, nw: wideWords}
	var top wide
	for _, e := range edges {
		for i := range wideWords {
			top[i] |= e.w[i] ^ uint64(int64(e.w[wideWords-1])>>63)
		}
	}
	for m.nw > 1 && top[m.nw-1] == 0 && top[m.nw-2]>>56 == 0 {
		m.nw-- // room left for doubling and sums of duals
	}
	for k := range m.edges {
		m.edges[k].w = m.add(m.edges[k].w, m.edges[k].w)
	}
	m.run()
	for v := range n {
		if m.mate[v] >= 0 {
			mate[v] = m.endpoint[m.mate[v]]
		}
	}
	return mate
}

type matcher struct {
	n       int
	edges   []wedge
	maxCard bool
	nw      int // words of the weights in use

	endpoint         []int
	neighbend        [][]int
	mate             []int
	label            []int
	labelend         []int
	inblossom        []int
	blossomparent    []int
	blossomchilds    [][]int
	blossombase      []int
	blossomendps     [][]int
	bestedge         []int
	blossombestedges [][]int
	unusedblossoms   []int
	dualvar          []wide
	allowedge        []bool
	queue            []int
}

func (m *matcher) slack(k int) (s wide) {
	e := &m.edges[k]
	a, b := &m.dualvar[e.i], &m.dualvar[e.j]
	var c1, c2, c3 uint64
	for i := range m.nw {
		var x uint64
		x, c1 = bits.Add64(a[i], b[i], c1)
		x, c2 = bits.Sub64(x, e.w[i], c2)
		s[i], c3 = bits.Sub64(x, e.w[i], c3)
	}
	return s
}

func (m *matcher) add(a, b wide) wide {
	var c uint64
	for i := range m.nw {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
	return a
}

func (m *matcher) sub(a, b wide) wide {
	var c uint64
	for i := range m.nw {
		a[i], c = bits.Sub64(a[i], b[i], c)
	}
	return a
}

// cmp compares a and b as signed numbers of m.nw words.
func (m *matcher) cmp(a, b wide) int {
	top := m.nw - 1
	if x, y := int64(a[top]), int64(b[top]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	for i := top - 1; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (m *matcher) half(a wide) wide {
	top := m.nw - 1
	for i := range top {
		a[i] = a[i]>>1 | a[i+1]<<63
	}
	a[top] = uint64(int64(a[top]) >> 1)
	return a
}

func (m *matcher) leaves(b int, f func(v int)) {
	if b < m.n {
		f(b)
		return
	}
	for _, t := range m.blossomchilds[b] {
		m.leaves(t, f)
	}
}

func (m *matcher) leafList(b int) []int {
	var vs []int
	m.leaves(b, func(v int) { vs = append(vs, v) })
	return vs
}

func (m *matcher) assignLabel(w, t, p int) {
	b := m.inblossom[w]
	m.label[w], m.label[b] = t, t
	m.labelend[w], m.labelend[b] = p, p
	m.bestedge[w], m.bestedge[b] = -1, -1
	if t == 1 {
		m.queue = append(m.queue, m.leafList(b)...)
	} else if t == 2 {
		base := m.blossombase[b]
		m.assignLabel(m.endpoint[m.mate[base]], 1, m.mate[base]^1)
	}
}

func (m *matcher) scanBlossom(v, w int) int {
	var path []int
	base := -1
	for v != -1 || w != -1 {
		b := m.inblossom[v]
		if m.label[b]&4 != 0 {
			base = m.blossombase[b]
			break
		}
		path = append(path, b)
		m.label[b] = 5
		if m.labelend[b] == -1 {
			v = -1
		} else {
			v = m.endpoint[m.labelend[b]]
			b = m.inblossom[v]
			v = m.endpoint[m.labelend[b]]
		}
		if w != -1 {
			v, w = w, v
		}
	}
	for _, b := range path {
		m.label[b] = 1
	}
	return base
}

func (m *matcher) addBlossom(base, k int) {
	v, w := m.edges[k].i, m.edges[k].j
	bb := m.inblossom[base]
	bv := m.inblossom[v]
	bw := m.inblossom[w]
	b := m.unusedblossoms[len(m.unusedblossoms)-1]
	m.unusedblossoms = m.unusedblossoms[:len(m.unusedblossoms)-1]
	m.blossombase[b] = base
	m.blossomparent[b] = -1
	m.blossomparent[bb] = b
	var path, endps []int
	for bv != bb {
		m.blossomparent[bv] = b
		path = append(path, bv)
		endps = append(endps, m.labelend[bv])
		v = m.endpoint[m.labelend[bv]]
		bv = m.inblossom[v]
	}
	path = append(path, bb)
	slices.Reverse(path)
	slices.Reverse(endps)
	endps = append(endps, 2*k)
	for bw != bb {
		m.blossomparent[bw] = b
		path = append(path, bw)
		endps = append(endps, m.labelend[bw]^1)
		w = m.endpoint[m.labelend[bw]]
		bw = m.inblossom[w]
	}
	m.blossomchilds[b] = path
	m.blossomendps[b] = endps
	m.label[b] = 1
	m.labelend[b] = m.labelend[bb]
	m.dualvar[b] = wide{}
	for _, v := range m.leafList(b) {
		if m.label[m.inblossom[v]] == 2 {
			m.queue = append(m.queue, v)
		}
		m.inblossom[v] = b
	}
	bestedgeto := make([]int, 2*m.n)
	for i := range bestedgeto {
		bestedgeto[i] = -1
	}
	for _, bv := range path {
		var nblists [][]int
		if m.blossombestedges[bv] == nil {
			for _, v := range m.leafList(bv) {
				l := make([]int, len(m.neighbend[v]))
				for x, p := range m.neighbend[v] {
					l[x] = p / 2
				}
				nblists = append(nblists, l)
			}
		} else {
			nblists = [][]int{m.blossombestedges[bv]}
		}
		for _, nblist := range nblists {
			for _, k := range nblist {
				j := m.edges[k].j
				if m.inblossom[j] == b {
					j = m.edges[k].i
				}
				bj := m.inblossom[j]
				if bj != b && m.label[bj] == 1 && (bestedgeto[bj] == -1 || m.cmp(m.slack(k), m.slack(bestedgeto[bj])) < 0) {
					bestedgeto[bj] = k
				}
			}
		}
		m.blossombestedges[bv] = nil
		m.bestedge[bv] = -1
	}
	var best []int
	for _, k := range bestedgeto {
		if k != -1 {
			best = append(best, k)
		}
	}
	if best == nil {
		best = []int{}
	}
	m.blossombestedges[b] = best
	m.bestedge[b] = -1
	for _, k := range best {
		if m.bestedge[b] == -1 || m.cmp(m.slack(k), m.slack(m.bestedge[b])) < 0 {
			m.bestedge[b] = k
		}
	}
}

func (m *matcher) expandBlossom(b int, endstage bool) {
	for _, s := range m.blossomchilds[b] {
		m.blossomparent[s] = -1
		switch {
		case s < m.n:
			m.inblossom[s] = s
		case endstage && m.dualvar[s] == (wide{}):
			m.expandBlossom(s, endstage)
		default:
			m.leaves(s, func(v int) { m.inblossom[v] = s })
		}
	}
	if !endstage && m.label[b] == 2 {
		childs := m.blossomchilds[b]
		entrychild := m.inblossom[m.endpoint[m.labelend[b]^1]]
		j := slices.Index(childs, entrychild)
		var jstep, endptrick int
		if j&1 != 0 {
			j -= len(childs)
			jstep, endptrick = 1, 0
		} else {
			jstep, endptrick = -1, 1
		}
		at := func(x int) int { // Python's negative indexing
			if x < 0 {
				x += len(childs)
			}
			return x
		}
		endps := m.blossomendps[b]
		p := m.labelend[b]
		for j != 0 {
			m.label[m.endpoint[p^1]] = 0
			m.label[m.endpoint[endps[at(j-endptrick)]^endptrick^1]] = 0
			m.assignLabel(m.endpoint[p^1], 2, p)
			m.allowedge[endps[at(j-endptrick)]/2] = true
			j += jstep
			p = endps[at(j-endptrick)] ^ endptrick
			m.allowedge[p/2] = true
			j += jstep
		}
		bv := childs[at(j)]
		m.label[m.endpoint[p^1]], m.label[bv] = 2, 2
		m.labelend[m.endpoint[p^1]], m.labelend[bv] = p, p
		m.bestedge[bv] = -1
		j += jstep
		for childs[at(j)] != entrychild {
			bv := childs[at(j)]
			if m.label[bv] == 1 {
				j += jstep
				continue
			}
			found := -1
			for _, v := range m.leafList(bv) {
				if m.label[v] != 0 {
					found = v
					break
				}
			}
			if found >= 0 {
				v := found
				m.label[v] = 0
				m.label[m.endpoint[m.mate[m.blossombase[bv]]]] = 0
				m.assignLabel(v, 2, m.labelend[v])
			}
			j += jstep
		}
	}
	m.label[b], m.labelend[b] = -1, -1
	m.blossomchilds[b], m.blossomendps[b] = nil, nil
	m.blossombase[b] = -1
	m.blossombestedges[b] = nil
	m.bestedge[b] = -1
	m.unusedblossoms = append(m.unusedblossoms, b)
}

func (m *matcher) augmentBlossom(b, v int) {
	t := v
	for m.blossomparent[t] != b {
		t = m.blossomparent[t]
	}
	if t >= m.n {
		m.augmentBlossom(t, v)
	}
	childs := m.blossomchilds[b]
	endps := m.blossomendps[b]
	at := func(x int) int {
		if x < 0 {
			x += len(childs)
		}
		return x
	}
	i := slices.Index(childs, t)
	j := i
	var jstep, endptrick int
	if i&1 != 0 {
		j -= len(childs)
		jstep, endptrick = 1, 0
	} else {
		jstep, endptrick = -1, 1
	}
	for j != 0 {
		j += jstep
		t = childs[at(j)]
		p := endps[at(j-endptrick)] ^ endptrick
		if t >= m.n {
			m.augmentBlossom(t, m.endpoint[p])
		}
		j += jstep
		t = childs[at(j)]
		if t >= m.n {
			m.augmentBlossom(t, m.endpoint[p^1])
		}
		m.mate[m.endpoint[p]] = p ^ 1
		m.mate[m.endpoint[p^1]] = p
	}
	m.blossomchilds[b] = append(slices.Clone(childs[i:]), childs[:i]...)
	m.blossomendps[b] = append(slices.Clone(endps[i:]), endps[:i]...)
	m.blossombase[b] = m.blossombase[m.blossomchilds[b][0]]
}

func (m *matcher) augmentMatching(k int) {
	v, w := m.edges[k].i, m.edges[k].j
	for _, sp := range [2][2]int{{v, 2*k + 1}, {w, 2 * k}} {
		s, p := sp[0], sp[1]
		for {
			bs := m.inblossom[s]
			if bs >= m.n {
				m.augmentBlossom(bs, s)
			}
			m.mate[s] = p
			if m.labelend[bs] == -1 {
				break
			}
			t := m.endpoint[m.labelend[bs]]
			bt := m.inblossom[t]
			s = m.endpoint[m.labelend[bt]]
			j := m.endpoint[m.labelend[bt]^1]
			if bt >= m.n {
				m.augmentBlossom(bt, j)
			}
			m.mate[j] = m.labelend[bt]
			p = m.labelend[bt] ^ 1
		}
	}
}

func (m *matcher) run() {
	n := m.n
	var maxweight wide
	for _, e := range m.edges {
		if m.cmp(e.w, maxweight) > 0 {
			maxweight = e.w
		}
	}
	m.endpoint = make([]int, 2*len(m.edges))
	m.neighbend = make([][]int, n)
	for k, e := range m.edges {
		m.endpoint[2*k], m.endpoint[2*k+1] = e.i, e.j
		m.neighbend[e.i] = append(m.neighbend[e.i], 2*k+1)
		m.neighbend[e.j] = append(m.neighbend[e.j], 2*k)
	}
	fill := func(s []int, v int) []int {
		for i := range s {
			s[i] = v
		}
		return s
	}
	m.mate = fill(make([]int, n), -1)
	m.label = make([]int, 2*n)
	m.labelend = fill(make([]int, 2*n), -1)
	m.inblossom = make([]int, n)
	for i := range n {
		m.inblossom[i] = i
	}
	m.blossomparent = fill(make([]int, 2*n), -1)
	m.blossomchilds = make([][]int, 2*n)
	m.blossombase = fill(make([]int, 2*n), -1)
	for i := range n {
		m.blossombase[i] = i
	}
	m.blossomendps = make([][]int, 2*n)
	m.bestedge = fill(make([]int, 2*n), -1)
	m.blossombestedges = make([][]int, 2*n)
	for i := 2*n - 1; i >= n; i-- {
		m.unusedblossoms = append(m.unusedblossoms, i)
	}
	m.dualvar = make([]wide, 2*n)
	for i := range n {
		m.dualvar[i] = maxweight
	}
	m.allowedge = make([]bool, len(m.edges))

	for range n {
		clear(m.label)
		fill(m.bestedge, -1)
		for i := n; i < 2*n; i++ {
			m.blossombestedges[i] = nil
		}
		clear(m.allowedge)
		m.queue = m.queue[:0]
		for v := range n {
			if m.mate[v] == -1 && m.label[m.inblossom[v]] == 0 {
				m.assignLabel(v, 1, -1)
			}
		}
		augmented := false
		for {
			for len(m.queue) > 0 && !augmented {
				v := m.queue[len(m.queue)-1]
				m.queue = m.queue[:len(m.queue)-1]
				for _, p := range m.neighbend[v] {
					k := p / 2
					w := m.endpoint[p]
					if m.inblossom[v] == m.inblossom[w] {
						continue
					}
					var kslack, zero wide
					if !m.allowedge[k] {
						kslack = m.slack(k)
						if m.cmp(kslack, zero) <= 0 {
							m.allowedge[k] = true
						}
					}
					switch {
					case m.allowedge[k]:
						switch {
						case m.label[m.inblossom[w]] == 0:
							m.assignLabel(w, 2, p^1)
						case m.label[m.inblossom[w]] == 1:
							if base := m.scanBlossom(v, w); base >= 0 {
								m.addBlossom(base, k)
							} else {
								m.augmentMatching(k)
								augmented = true
							}
						case m.label[w] == 0:
							m.label[w] = 2
							m.labelend[w] = p ^ 1
						}
					case m.label[m.inblossom[w]] == 1:
						b := m.inblossom[v]
						if m.bestedge[b] == -1 || m.cmp(kslack, m.slack(m.bestedge[b])) < 0 {
							m.bestedge[b] = k
						}
					case m.label[w] == 0:
						if m.bestedge[w] == -1 || m.cmp(kslack, m.slack(m.bestedge[w])) < 0 {
							m.bestedge[w] = k
						}
					}
					if augmented {
						break
					}
				}
			}
			if augmented {
				break
			}
			// With maxCard, no delta of type 1 until nothing else is left.
			deltatype := -1
			var delta, zero wide
			deltaedge, deltablossom := -1, -1
			if !m.maxCard {
				deltatype, delta = 1, m.dualvar[0]
				for _, d := range m.dualvar[1:n] {
					if m.cmp(d, delta) < 0 {
						delta = d
					}
				}
			}
			for v := range n {
				if m.label[m.inblossom[v]] == 0 && m.bestedge[v] != -1 {
					if d := m.slack(m.bestedge[v]); deltatype == -1 || m.cmp(d, delta) < 0 {
						delta, deltatype, deltaedge = d, 2, m.bestedge[v]
					}
				}
			}
			for b := range 2 * n {
				if m.blossomparent[b] == -1 && m.label[b] == 1 && m.bestedge[b] != -1 {
					if d := m.half(m.slack(m.bestedge[b])); deltatype == -1 || m.cmp(d, delta) < 0 {
						delta, deltatype, deltaedge = d, 3, m.bestedge[b]
					}
				}
			}
			for b := n; b < 2*n; b++ {
				if m.blossombase[b] >= 0 && m.blossomparent[b] == -1 && m.label[b] == 2 && (deltatype == -1 || m.cmp(m.dualvar[b], delta) < 0) {
					delta, deltatype, deltablossom = m.dualvar[b], 4, b
				}
			}
			if deltatype == -1 {
				deltatype = 1
				delta = m.dualvar[0]
				for _, d := range m.dualvar[1:n] {
					if m.cmp(d, delta) < 0 {
						delta = d
					}
				}
				if m.cmp(delta, zero) < 0 {
					delta = zero
				}
			}
			for v := range n {
				switch m.label[m.inblossom[v]] {
				case 1:
					m.dualvar[v] = m.sub(m.dualvar[v], delta)
				case 2:
					m.dualvar[v] = m.add(m.dualvar[v], delta)
				}
			}
			for b := n; b < 2*n; b++ {
				if m.blossombase[b] >= 0 && m.blossomparent[b] == -1 {
					switch m.label[b] {
					case 1:
						m.dualvar[b] = m.add(m.dualvar[b], delta)
					case 2:
						m.dualvar[b] = m.sub(m.dualvar[b], delta)
					}
				}
			}
			if deltatype == 1 {
				break
			}
			switch deltatype {
			case 2:
				m.allowedge[deltaedge] = true
				i := m.edges[deltaedge].i
				if m.label[m.inblossom[i]] == 0 {
					i = m.edges[deltaedge].j
				}
				m.queue = append(m.queue, i)
			case 3:
				m.allowedge[deltaedge] = true
				m.queue = append(m.queue, m.edges[deltaedge].i)
			case 4:
				m.expandBlossom(deltablossom, false)
			}
		}
		if !augmented {
			break
		}
		for b := n; b < 2*n; b++ {
			if m.blossomparent[b] == -1 && m.blossombase[b] >= 0 && m.label[b] == 1 && m.dualvar[b] == (wide{}) {
				m.expandBlossom(b, true)
			}
		}
	}
}
