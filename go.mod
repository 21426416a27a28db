module onehistory

go 1.24.0

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/fatih/color v1.18.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/rogpeppe/go-internal v1.14.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
