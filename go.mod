module github.com/unitrace/unitrace

go 1.26

require github.com/hugelgupf/vmtest v0.0.0-20240307030256-5d9f3d34a58d

require (
	github.com/Netflix/go-expect v0.0.0-20220104043353-73e0943537d2 // indirect
	github.com/creack/pty v1.1.21 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	golang.org/x/sync v0.6.0 // indirect
	gopkg.in/yaml.v3 v3.0.0 // indirect
)
