package telegramfake

import (
	"net/http"
	"slices"
	"strconv"
)

// file is a file a user sent, which the bot may download.
type file struct {
	name, mime, unique string
	data               []byte
}

// AddFile makes a file the users may send (Incoming.Photo, Document,
// Voice name it by fileID) and the bot may download: getFile gives its
// path, /file/bot<token>/<path> its bytes.
func (s *Server) AddFile(fileID, name, mimeType string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[fileID] = file{name: name, mime: mimeType, unique: "u" + strconv.Itoa(len(s.files)+1) + "x", data: slices.Clone(data)}
}

// getFile answers getFile with the file's path.
func (s *Server) getFile(w http.ResponseWriter, p params) {
	s.mu.Lock()
	f, found := s.files[p["file_id"]]
	s.mu.Unlock()
	if !found {
		apiError(w, http.StatusBadRequest, "Bad Request: invalid file_id")
		return
	}
	ok(w, map[string]any{"file_id": p["file_id"], "file_unique_id": f.unique, "file_size": len(f.data),
		"file_path": "documents/" + p["file_id"]})
}

// serveFile serves a file's bytes at the path getFile gave.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls["download"]++
	s.mu.Notify()
	s.mu.Unlock()
	if r.PathValue("token") != s.Token() {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if f, ok := s.takeFailure("download"); ok {
		fail(w, f)
		return
	}
	id := ""
	if p := r.PathValue("path"); len(p) > len("documents/") {
		id = p[len("documents/"):]
	}
	s.mu.Lock()
	f, found := s.files[id]
	s.mu.Unlock()
	if !found {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(f.data)
}
