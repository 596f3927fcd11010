module github.com/tref-lang/tref

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/ebitengine/purego v0.11.3
	github.com/fatih/color v1.19.0
	github.com/peterh/liner v1.2.3
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.31 // indirect
	golang.org/x/tools v0.26.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
