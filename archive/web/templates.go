package web

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// pageScript is the one script of every page: the arrow keys step through
// a game's positions, and a live page fetches itself again when its game
// moves. The pages' Content-Security-Policy allows it by its hash
// (scriptSource) and no other script.
const pageScript = `
(function(){
var keys={ArrowLeft:"prev",ArrowRight:"next",Home:"first",End:"end"};
function step(e){if(e.target.tagName==="INPUT"||e.altKey||e.ctrlKey||e.metaKey)return null;return document.getElementById(keys[e.key]);}
document.addEventListener("keydown",function(e){if(step(e))e.preventDefault();});
document.addEventListener("keyup",function(e){var a=step(e);if(a&&a.href)location.href=a.href;});
var live=document.body.dataset.live;
if(live&&window.EventSource){var es=new EventSource(live);
addEventListener("pagehide",function(){es.close();});
es.addEventListener("move",function(){
fetch(location.pathname).then(function(r){return r.text();}).then(function(t){
var m=new DOMParser().parseFromString(t,"text/html").getElementById("main");
if(m)document.getElementById("main").innerHTML=m.innerHTML;});});}
})();
`

// scriptSource is the script-src of the pages' Content-Security-Policy:
// the hash of pageScript.
var scriptSource = func() string {
	sum := sha256.Sum256([]byte(pageScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// contentSecurityPolicy is the pages' policy: nothing from elsewhere, no
// script but pageScript, no plugin, no base or form that leaves the site.
// The server sends it as a header; a static site's pages carry it in a
// meta element, for hosts that send none.
var contentSecurityPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src " + scriptSource +
	"; connect-src 'self'; form-action 'self'; base-uri 'none'"

// pages are the page templates. Each page is self-contained: inline
// style, one inline script (pageScript), no external resource.
var pages = template.Must(template.New("").Funcs(template.FuncMap{"csp": func() string { return contentSecurityPolicy },
	"add": func(a ...int) int {
		n := 0
		for _, x := range a {
			n += x
		}
		return n
	}}).Parse(`
{{define "top"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
{{if .Static}}<meta http-equiv="Content-Security-Policy" content="{{csp}}">
{{end}}<title>{{.Title}} - {{.Site}}</title>{{if .Feed}}
<link rel="alternate" type="application/atom+xml" title="{{.Title}}: finished games" href="{{.Feed}}">{{end}}
<style>
body{font:15px/1.4 sans-serif;margin:0 auto;max-width:72em;padding:0 1em;color:#222;background:#fbfaf6}
header{display:flex;gap:1em;align-items:center;border-bottom:1px solid #ccc;padding:.5em 0;flex-wrap:wrap}
header a{font-weight:bold}a{color:#1a4f8b}
table{border-collapse:collapse}td,th{padding:.15em .6em;text-align:left;border-bottom:1px solid #e4e0d4}
.game{display:flex;gap:1.5em;flex-wrap:wrap;align-items:flex-start}.board svg{max-width:100%;height:auto}
.sw{display:inline-block;width:.9em;height:.9em;border:1px solid #333;vertical-align:middle}
.tomove{font-weight:bold}.moves{columns:2;column-gap:3em;max-width:34em;padding-left:2.5em}.moves a[aria-current]{background:#f2d33a;font-weight:bold}
.step a,.step span{margin-right:.6em}.err{color:#a00}.meta{color:#555}
</style></head>
<body{{if .Live}} data-live="{{.Live}}"{{end}}>
<header><a href="{{.URL "/"}}">{{.Site}}</a> <a href="{{.URL "/archive"}}">archive</a> <a href="{{.URL "/ratings"}}">ratings</a>
{{if not .Static}}<form action="/archive" role="search"><input name="q" aria-label="search the archive" placeholder="player, event, game"> <button>search</button></form>{{end}}
</header>
<main id="main">
{{end}}

{{define "bottom"}}</main>
<script>` + pageScript + `</script>
</body></html>
{{end}}

{{define "rows"}}<table class="games"><tr><th>game</th><th>players</th><th>event</th><th>date</th><th>result</th></tr>
{{range .}}<tr><td><a href="{{.URL}}">{{.Game}} {{.ID}}</a></td><td>{{range $i, $p := .Players}}{{if $i}}, {{end}}{{if $p.URL}}<a href="{{$p.URL}}">{{$p.Name}}</a>{{else}}{{$p.Name}}{{end}}{{end}}</td><td>{{.Event}}</td><td>{{.Date}}</td><td>{{if .Result}}{{.Result}}{{else}}{{.Status}}{{end}}</td></tr>
{{end}}</table>{{end}}

{{define "index"}}{{template "top" .}}{{with .Body}}
<h1>Games</h1>
<h2>Being played</h2>{{if .Active}}{{template "rows" .Active}}{{else}}<p>No game is being played.</p>{{end}}
<h2>Recent results</h2>{{if .Results}}{{template "rows" .Results}}{{else}}<p>No game has finished yet.</p>{{end}}
{{if .Games}}<h2>Ratings</h2><p>{{range .Games}}<a href="{{.URL}}">{{.Name}}</a> {{end}}</p>{{end}}
{{end}}{{template "bottom" .}}{{end}}

{{define "game"}}{{template "top" .}}{{with .Body}}
<h1>{{.Heading}}</h1>
<p class="meta">{{if .Event2}}<a href="{{.Event2}}">{{.Event}}</a>{{else}}{{.Event}}{{end}}{{if .Round}}, round {{.Round}}{{end}}{{if .Date}}, {{.Date}}{{end}} &middot; {{.Status}}{{if .Days}} &middot; {{.Days}} days per move{{end}}</p>
{{if .Problem}}<p class="err">{{.Problem}}</p>{{end}}
<div class="game"><div class="board" id="board">{{.SVG}}</div>
<div class="side">
<table class="players">{{range .Players}}<tr{{if .ToMove}} class="tomove"{{end}}><td><span class="sw" style="background:{{.Colour}}"></span> {{.Side}}</td><td>{{if .URL}}<a href="{{.URL}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td>{{if .ToMove}}to move{{if .Clock}}, {{.Clock}}{{end}}{{end}}</td></tr>
{{end}}</table>
<p id="turn">{{.Turn}}</p>
{{if .Result}}<p>Result: <strong>{{.Result}}</strong>{{if .Reason}} ({{.Reason}}){{end}}</p>{{end}}
<p class="step" data-ply="{{.Ply}}">Position after <span id="ply">{{.Ply}}</span> of {{.Last}} plies:
{{if .Prev}}<a id="first" href="{{.First}}">start</a><a id="prev" href="{{.Prev}}" rel="prev">&larr; back</a>{{else}}<span>start</span><span>&larr; back</span>{{end}}
{{if .End}}<a id="next" href="{{.Next}}" rel="next">forward &rarr;</a><a id="end" href="{{.End}}">latest</a>{{else}}<span>forward &rarr;</span><span>latest</span>{{end}}</p>
<ol class="moves">{{range .Plies}}<li>{{if .URL}}<a href="{{.URL}}"{{if .Current}} aria-current="step"{{end}}>{{.Side}} {{.Text}}</a>{{else}}{{.Side}} {{.Text}}{{end}}</li>
{{end}}</ol>
{{if .PGN}}<p><a href="{{.PGN}}" download>Download the record (PGN)</a></p>{{end}}{{if .Analysis}}
<h2>The computer's analysis</h2>
<pre class="analysis">{{.Analysis}}</pre>{{end}}
{{if .Through}}<p><a href="{{.Through}}">Games through this position</a>{{if .Explore}} · <a href="{{.Explore}}">Explore from here</a>{{end}}</p>{{end}}
</div></div>
{{end}}{{template "bottom" .}}{{end}}

{{define "archive"}}{{template "top" .}}{{with .Body}}
<h1>Archive</h1>
{{if not $.Static}}<form action="/archive" class="search">
<label>game <input name="game" value="{{.Game}}" size="10"></label>
<label>player <input name="player" value="{{.Player}}" size="14"></label>
<label>event <input name="event" value="{{.Event}}" size="14"></label>
<label>since <input name="since" value="{{.Since}}" size="10" placeholder="YYYY.MM.DD"></label>
<label>words <input name="q" value="{{.Q}}" size="14"></label>
<label>position <input name="position" value="{{.Position}}" size="30" placeholder="a position text"></label>
<button>search</button></form>{{end}}
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
{{if .First}}<p>{{if .More}}More than {{end}}{{.Total}} games through the position{{if .Shown}}; {{.First}} to {{add .First .Shown -1}} shown, the newest first{{end}}.</p>
{{template "rows" .Games}}
{{if or .Prev .Next}}<p class="pages">{{if .Prev}}<a href="{{.Prev}}" rel="prev">newer</a>{{end}} {{if .Next}}<a href="{{.Next}}" rel="next">older</a>{{end}}</p>{{end}}
{{else}}<p>{{.Total}} games{{if lt .Shown .Total}}, the newest {{.Shown}} shown{{end}}.</p>
{{template "rows" .Games}}{{end}}
{{end}}{{template "bottom" .}}{{end}}

{{define "event"}}{{template "top" .}}{{with .Body}}
<h1>{{.Event}}</h1>
{{range .Tournaments}}{{template "tournament" .}}{{end}}{{if or .Players (not .Tournaments)}}{{if .Tournaments}}<h2>Crosstable</h2>
{{end}}<p>{{.Games}} games with a result.</p>
<table class="crosstable"><tr><th>#</th><th>player</th><th>games</th><th>score</th><th>SB</th>{{range .Heads}}<th>{{.}}</th>{{end}}</tr>
{{range .Players}}<tr><td>{{.Rank}}</td><td>{{if .Name.URL}}<a href="{{.Name.URL}}">{{.Name.Name}}</a>{{else}}{{.Name.Name}}{{end}}</td><td>{{.Games}}</td><td>{{.Score}}</td><td>{{.SB}}</td>{{range .Results}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{if or .List (not .Tournaments)}}<h2>Games</h2>{{template "rows" .List}}
{{end}}{{end}}{{template "bottom" .}}{{end}}

{{define "explore"}}{{template "top" .}}{{with .Body}}
<h1>Explorer: {{.Game}}</h1>
<p><a href="{{.Start}}">start</a>{{range .Plies}} <a href="{{.URL}}">{{.Ply}}</a>{{end}}</p>
{{if .SVG}}<div class="board">{{.SVG}}</div>{{end}}
<p>Position: <code>{{.Position}}</code></p>
{{if not $.Static}}<form action="/explore/{{.Game}}" class="search">{{if .After}}<input type="hidden" name="after" value="{{.After}}">{{end}}{{if .Players}}<input type="hidden" name="players" value="{{.Players}}">{{end}}
<label>player <input name="player" value="{{.Player}}" size="14"></label>
<label>event <input name="event" value="{{.Event}}" size="14"></label>
<button>filter</button></form>{{end}}
{{if .Moves}}<table class="explore"><tr><th>ply</th><th>games</th><th>wins</th><th>draws</th><th>losses</th><th>unfinished</th><th>score</th><th>average rank</th></tr>
{{range .Moves}}<tr><td><a href="{{.URL}}">{{.Ply}}</a></td><td>{{.Games}}</td><td>{{.Wins}}</td><td>{{.Draws}}</td><td>{{.Losses}}</td><td>{{.Unfinished}}</td><td>{{.WinPercent}}</td><td>{{.AverageRank}}</td></tr>
{{end}}</table>
<p>Results for {{.Mover}}, the side to move.</p>{{else}}<p>No archived game plays on from this position.</p>{{end}}
{{end}}{{template "bottom" .}}{{end}}

{{define "ratingsindex"}}{{template "top" .}}{{with .Body}}
<h1>Ratings</h1><ul>{{range .Games}}<li><a href="{{.URL}}">{{.Name}}</a></li>{{end}}</ul>
{{end}}{{template "bottom" .}}{{end}}

{{define "ratings"}}{{template "top" .}}{{with .Body}}
<h1>Ratings: {{.Game}}</h1>
<p>Elo from {{.Games}} rated games.</p>
{{if .Players}}<table class="ratings"><tr><th>#</th><th>player</th><th>rating</th><th>games</th></tr>
{{range .Players}}<tr><td>{{.Rank}}</td><td>{{if .Name.URL}}<a href="{{.Name.URL}}">{{.Name.Name}}</a>{{else}}{{.Name.Name}}{{end}}</td><td>{{.Rating}}</td><td>{{.Games}}</td></tr>
{{end}}</table>{{else}}<p>No rated game yet.</p>{{end}}
{{end}}{{template "bottom" .}}{{end}}

{{define "player"}}{{template "top" .}}{{with .Body}}
<h1>{{.Name}}</h1>
{{if .Active}}<h2>Being played</h2>{{template "rows" .Active}}{{end}}
{{if .Ratings}}<h2>Ratings</h2>{{range .Ratings}}<h3><a href="{{.URL}}">{{.Game}}</a>: {{.Rating}}</h3>
<ol class="history">{{range .Points}}<li>{{if .URL}}<a href="{{.URL}}">{{.Date}}</a>{{else}}{{.Date}}{{end}}: {{.Rating}}</li>{{end}}</ol>{{end}}{{end}}
<h2>Finished games</h2><p>{{.Total}} games{{if gt .Total (len .Games)}}, the newest {{len .Games}} shown{{end}}.</p>
{{template "rows" .Games}}
{{end}}{{template "bottom" .}}{{end}}
`))
