package main

import "fmt"

// runArchive is `pbem archive` (issue 9; being built).
func runArchive(c *cli, args []string) int {
	fs := c.flags("archive")
	_, code, done := c.parse(fs, args)
	if done {
		return code
	}
	fmt.Fprintln(c.stderr, "pbem archive: not built yet")
	return 2
}
