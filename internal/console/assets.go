package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed assets
var assets embed.FS

// assetHandler serves the embedded page: index.html at /, the script and
// the style sheet beside it.
func assetHandler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return http.FileServerFS(sub)
}

// isAsset reports whether path names one of the page's static files.
func isAsset(path string) bool {
	name := strings.TrimPrefix(path, "/")
	if name == "" || strings.Contains(name, "/") {
		return false
	}
	_, err := fs.Stat(assets, "assets/"+name)
	return err == nil
}
