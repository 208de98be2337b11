package web

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/engine/elevation"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
	"pbem/engine/ziggurat"
	"pbem/engine/ziggurat43"
)

// variants are the games and boards every drawing test covers.
var variants = []struct {
	name  string
	rules engine.Rules
	opts  engine.Options
}{
	{"ziggurat", ziggurat.Rules{}, engine.Options{}},
	{"elevation", elevation.Rules{}, engine.Options{}},
	{"ziggurat43", ziggurat43.Rules{}, engine.Options{}},
	{"castles", castles.Rules{}, engine.Options{}},
	{"rpp-square5", rpp.Rules{}, engine.Options{Players: 2}},
	{"rpp-hex5", rpp.Rules{}, engine.Options{Players: 3}},
	{"rpp-square7", rpp.Rules{}, engine.Options{Players: 4}},
	{"rpp-hex7", rpp.Rules{}, engine.Options{Players: 6}},
	{"rpp-octagon", rpp.Rules{}, engine.Options{Players: 8}},
}

// svgFacts parses an SVG document and returns its title, description and
// the pieces it draws as "cell:letter".
func svgFacts(doc string) (title, desc string, pieces []string, err error) {
	d := xml.NewDecoder(strings.NewReader(doc))
	var path []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", "", nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			attr := map[string]string{}
			for _, a := range t.Attr {
				attr[a.Name.Local] = a.Value
			}
			cls := strings.Fields(attr["class"])
			if slices.Contains(cls, "piece") || slices.Contains(cls, "under") {
				pieces = append(pieces, attr["data-cell"]+":"+attr["data-piece"])
			}
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			switch strings.Join(path, "/") {
			case "svg/title":
				title += string(t)
			case "svg/desc":
				desc += string(t)
			}
		}
	}
	return title, desc, pieces, nil
}

// layoutPieces lists a layout's pieces as "cell:letter", holdings included.
func layoutPieces(l *engine.Layout) []string {
	var out []string
	for _, c := range l.Cells {
		for _, p := range append(slices.Clone(c.Pieces), c.Under...) {
			out = append(out, c.Name+":"+p.Letter)
		}
	}
	for _, h := range l.Holdings {
		for _, p := range h.Pieces {
			out = append(out, h.Name+":"+p.Letter)
		}
	}
	return out
}

// TestSVGShowsThePosition: for every game and board, at positions of
// random games, the SVG parses as XML, has a title and a description that
// says whose turn it is, and draws exactly the pieces of the position.
func TestSVGShowsThePosition(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			states, err := enginetest.Positions(v.rules, v.opts, 11, 3, 60)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for i, s := range states {
				l := s.(engine.Layouter).Layout(-1)
				doc := SVG(l, fmt.Sprintf("%s position %d", v.name, i))
				title, desc, got, err := svgFacts(doc)
				if err != nil {
					t.Fatalf("position %d: SVG does not parse: %v", i, err)
				}
				if title != fmt.Sprintf("%s position %d", v.name, i) {
					t.Errorf("title = %q", title)
				}
				if !strings.HasPrefix(desc, l.Status) {
					t.Errorf("desc = %q, want it to start with the status %q", desc, l.Status)
				}
				want := layoutPieces(l)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("position %d: SVG pieces\n%v\nwant\n%v\n%s", i, got, want, s.Render(-1))
				}
				total += len(want)
			}
			if total == 0 {
				t.Fatal("no piece drawn")
			}
		})
	}
}

func TestSVGEscapes(t *testing.T) {
	l := &engine.Layout{Width: 1, Height: 1, Sides: []string{"A<", "B&"}, Colours: []string{"", ""}, Status: `R>Y "over"`,
		Cells: []engine.Cell{{Name: "a1", X: 0.5, Y: 0.5, Shape: engine.SquareCell, Owner: -1,
			Pieces: []engine.Piece{{Side: 1, Letter: "<", Name: "x&y"}}}}}
	_, desc, pieces, err := svgFacts(SVG(l, "a <title> & more"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(desc, `R>Y "over"`) || !strings.Contains(desc, "B& x&y") {
		t.Errorf("desc = %q", desc)
	}
	if !slices.Equal(pieces, []string{"a1:<"}) {
		t.Errorf("pieces = %v", pieces)
	}
}
