module onehistory

go 1.24.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/fatih/color v1.18.0
	github.com/mattn/go-isatty v0.0.20
	github.com/rogpeppe/go-internal v1.14.1
	github.com/stretchr/testify v1.12.1
	golang.org/x/tools v0.42.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
