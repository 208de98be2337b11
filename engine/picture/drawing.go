package picture

import (
	"fmt"

	"pbem/engine"
)

// Drawing is what a PNG is drawn from, kept in its place where the drawing
// can wait: a mail's board is stored as its Drawing (see Drawing.JSON)
// and drawn when the mail is sent. The same Drawing always gives the same
// bytes. Its JSON fields are those of the object mails stored before the
// binary form (binaryVersion) hold.
type Drawing struct {
	Layout  *engine.Layout `json:"layout"`
	Options *Options       `json:"options,omitempty"`
	// Cell is the size of a cell in pixels (0: the default).
	Cell int `json:"cell,omitempty"`
}

// PNG draws d (see PNG).
func (d *Drawing) PNG() ([]byte, error) {
	if d.Layout == nil {
		return nil, fmt.Errorf("picture: a drawing without a layout")
	}
	return PNG(d.Layout, d.Options, d.Cell)
}

// DrawJSON draws the PNG of a Drawing given in JSON: as Drawing.JSON
// writes it, or as the object encoding/json writes, which mails stored
// before the binary form hold. Either draws the same bytes.
func DrawJSON(data []byte) ([]byte, error) {
	d, err := readDrawing(data)
	if err != nil {
		return nil, fmt.Errorf("picture: a drawing that does not read: %w", err)
	}
	return d.PNG()
}
