module github.com/unitrace/unitrace

go 1.26

require (
	github.com/google/pprof v0.0.0-20260709232956-b9395ee17fa0
	github.com/hugelgupf/vmtest v0.0.0-20240307030256-5d9f3d34a58d
	golang.org/x/arch v0.26.0
)

require (
	github.com/Netflix/go-expect v0.0.0-20220104043353-73e0943537d2 // indirect
	github.com/creack/pty v1.1.21 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	golang.org/x/sync v0.6.0 // indirect
	gopkg.in/yaml.v3 v3.0.0 // indirect
)
