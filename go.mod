module github.com/unitrace/unitrace

go 1.26

require (
	github.com/google/pprof v0.0.0-20260709232956-b9395ee17fa0
	github.com/hugelgupf/p9 v0.3.0
	github.com/hugelgupf/vmtest v0.0.0-20240307030256-5d9f3d34a58d
	github.com/u-root/u-root v0.16.0
	golang.org/x/arch v0.26.0
	golang.org/x/sys v0.41.0
	golang.org/x/term v0.40.0
)

require (
	github.com/Netflix/go-expect v0.0.0-20220104043353-73e0943537d2 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	github.com/u-root/uio v0.0.0-20240224005618-d2acac8f3701 // indirect
	golang.org/x/sync v0.18.0 // indirect
)
