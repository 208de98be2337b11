package main

import (
	"fmt"
	"pbem/engine"
	"pbem/engine/castles"
)

func perft(s engine.State, d int) int {
	if d == 0 { return 1 }
	if s.Outcome().Over { return 0 }
	ms := s.Legal()
	if d == 1 { return len(ms) }
	n := 0
	for _, m := range ms {
		x, err := s.Apply(m)
		if err != nil { panic(err) }
		n += perft(x, d-1)
	}
	return n
}

func main() {
	s, _ := castles.Rules{}.Start(engine.Options{})
	fmt.Println(s.Render(-1))
	for d := 1; d <= 5; d++ { fmt.Println(d, perft(s, d)) }
}
