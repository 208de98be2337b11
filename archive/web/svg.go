package web

import (
	"pbem/engine"
	"pbem/engine/picture"
)

// SVG draws a layout as a standalone SVG document with a title and a text
// description (picture.SVG: the mail's PNG is drawn from the same scene).
// Every piece is a group of class "piece" whose data-cell and data-piece
// attributes name its cell (or holding) and letter.
func SVG(l *engine.Layout, title string) string {
	return picture.SVG(l, &picture.Options{Title: title})
}

// Describe writes a layout as text for the SVG's description.
func Describe(l *engine.Layout) string { return picture.Describe(l) }

// sideColour is the fill and ink of a side, as the picture draws it.
func sideColour(l *engine.Layout, side int) [2]string { return picture.SideColour(l, side) }
