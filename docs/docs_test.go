package docs

import (
	"os"
	"strings"
	"testing"
)

// TestCopiesMatchTheSpecification: where the shared specification is
// checked out beside the repository, the copies here must equal it, so a
// user who clones pbem alone reads the same contract.
func TestCopiesMatchTheSpecification(t *testing.T) {
	for name, text := range map[string]string{"RULES.md": Rules, "NOTATION.md": Notation} {
		if !strings.HasPrefix(text, "# ") || len(text) < 1000 {
			t.Errorf("%s is not embedded (%d bytes)", name, len(text))
		}
		shared, err := os.ReadFile("../../shared/" + name)
		if err != nil {
			continue // the repository alone: nothing to compare with
		}
		if string(shared) != text {
			t.Errorf("docs/%s differs from ../shared/%s: copy it again", name, name)
		}
	}
}
