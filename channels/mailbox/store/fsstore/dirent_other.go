//go:build !linux

package fsstore

import "io/fs"

// eachDirent calls fn with the name and kind of each entry of the folder
// dir; name is valid only during the call.
func eachDirent(dir string, fn func(name []byte, kind direntKind)) error {
	var buf []byte
	return eachEntry(dir, func(e fs.DirEntry) {
		kind := direntOther
		switch {
		case e.Type().IsRegular():
			kind = direntFile
		case e.IsDir():
			kind = direntDir
		}
		buf = append(buf[:0], e.Name()...)
		fn(buf, kind)
	})
}
