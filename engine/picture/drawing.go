package picture

import (
	"fmt"
	"sync"

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
//
// The PNGs drawn last are kept, by the drawing they were drawn from (see
// drawn): the same board seen from the same seat goes to every recipient
// who sees it so (the seats of a game that share a side of the board, its
// watchers) and again with each retry, and is drawn once. The bytes
// returned may be shared: the caller must not change them.
func DrawJSON(data []byte) ([]byte, error) {
	key := string(data)
	if png, ok := drawn.get(key); ok {
		return png, nil
	}
	d, err := readDrawing(data)
	if err != nil {
		return nil, fmt.Errorf("picture: a drawing that does not read: %w", err)
	}
	png, err := d.PNG()
	if err == nil {
		drawn.put(key, png)
	}
	return png, err
}

// drawn keeps the PNGs DrawJSON drew last, up to maxDrawn bytes of PNGs
// and drawings together: the replies to one move are sent within moments
// of each other, so a small cache serves them all; when full it is
// emptied and filled again.
var drawn pngCache

const maxDrawn = 4 << 20

type pngCache struct {
	sync.Mutex
	m     map[string][]byte
	bytes int
}

func (c *pngCache) get(key string) ([]byte, bool) {
	c.Lock()
	defer c.Unlock()
	png, ok := c.m[key]
	return png, ok
}

func (c *pngCache) put(key string, png []byte) {
	size := len(key) + len(png)
	if size > maxDrawn/16 {
		return // one picture may not take much of it
	}
	c.Lock()
	defer c.Unlock()
	if c.m == nil || c.bytes+size > maxDrawn {
		c.m, c.bytes = map[string][]byte{}, 0
	}
	if _, ok := c.m[key]; !ok {
		c.m[key] = png
		c.bytes += size
	}
}
