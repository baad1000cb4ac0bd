package p9

import "encoding/binary"

// Dirent is one directory entry of an Rreaddir: qid[13] offset[8] type[1] name[s] (Linux's
// p9dirent_read format "Qqbs", QEMU's v9fs_do_readdir). Offset is the cookie to pass to the next
// Treaddir to continue after this entry; Type is a Linux DT_* value (the server's d_type,
// DT_UNKNOWN if it does not know: DirentType falls back on the qid). Name is a slice of the
// reply.
type Dirent struct {
	Qid    Qid
	Offset uint64
	Type   uint8
	Name   []byte
}

// direntFixed is an entry's size without its name's bytes.
const direntFixed = QidSize + 8 + 1 + 2

// NextDirent decodes the entry at the start of data and returns it with the bytes after it.
// An entry that runs past the end of data is ErrDirent; a name that is empty or holds '/' or
// NUL is ErrDirName (a server must not hand the path resolver a name that is not one
// component).
func NextDirent(data []byte) (Dirent, []byte, Err) {
	if len(data) < direntFixed {
		return Dirent{}, nil, ErrDirent
	}
	var e Dirent
	e.Qid = Qid{Type: data[0], Version: binary.LittleEndian.Uint32(data[1:]), Path: binary.LittleEndian.Uint64(data[5:])}
	e.Offset = binary.LittleEndian.Uint64(data[QidSize:])
	e.Type = data[QidSize+8]
	n := int(binary.LittleEndian.Uint16(data[QidSize+9:]))
	if len(data)-direntFixed < n {
		return Dirent{}, nil, ErrDirent
	}
	e.Name = data[direntFixed : direntFixed+n]
	if !validName(e.Name) {
		return Dirent{}, nil, ErrDirName
	}
	return e, data[direntFixed+n:], OK
}

// validName says whether name can be one path component: not empty, no '/' or NUL.
func validName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if c == '/' || c == 0 {
			return false
		}
	}
	return true
}
