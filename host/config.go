package host

import (
	"os"

	"github.com/switchboard-dev/switchboard/config"
)

// LoadConfig reads the configuration as `switchboard run` does: the file
// at path ("" for ~/.nanobot/config.json; a missing default file leaves the
// defaults), with the process's NANOBOT_ environment variables applied
// over it.
func LoadConfig(path string) (*config.Config, error) {
	return config.Load(config.LoadOptions{Path: path, Environ: os.Environ()})
}
