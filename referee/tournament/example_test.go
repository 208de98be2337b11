package tournament_test

import (
	"fmt"
	"os"

	"pbem/referee/tournament"
)

// A referee drives an event round by round: Pair, start the games, record
// the results, and ask again; Standings says who leads. In round 2 the top
// score group (Ann, Dee, Eve) pairs Ann with Eve, not with Dee: Ann and
// Dee both had White and are due Black. Dee floats down and, having met
// Bob, meets Cy; Bob is left with the bye.
func ExampleEvent_Pair() {
	e := &tournament.Event{Name: "Autumn Cup", Format: tournament.Swiss, Rounds: 2, Players: []tournament.Player{
		{ID: "ann@example.org", Name: "Ann"}, {ID: "bob@example.org", Name: "Bob"},
		{ID: "cy@example.org", Name: "Cy"}, {ID: "dee@example.org", Name: "Dee"},
		{ID: "eve@example.org", Name: "Eve"},
	}}
	for round := 1; ; round++ {
		rd, err := e.Pair()
		if err == tournament.ErrFinished {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		e.Apply(rd)
		for i := range e.Games {
			if !e.Games[i].Ended() {
				e.Games[i].Ranks = []int{1, 2} // White wins every game
			}
		}
		e.WritePairings(os.Stdout, round)
		fmt.Println()
	}
	st, _ := e.Standings()
	st.WriteText(os.Stdout)
	// Output:
	// Autumn Cup: round 1 of 2
	//
	// 1. Ann - Cy  1-0
	// 2. Dee - Bob  1-0
	// bye: Eve
	//
	// Autumn Cup: round 2 of 2
	//
	// 1. Eve - Ann  1-0
	// 2. Cy - Dee  1-0
	// bye: Bob
	//
	// Autumn Cup: Swiss, 5 players, after round 2 of 2
	//
	// #  Player  Score  Games  Byes  Buch  Med
	// 1  Eve       2.0      1     1   3.0  0.0
	// 2  Ann       1.0      2     0   3.0  0.0
	// 3  Bob       1.0      1     1   2.0  0.0
	// 3  Cy        1.0      2     0   2.0  0.0
	// 3  Dee       1.0      2     0   2.0  0.0
}
