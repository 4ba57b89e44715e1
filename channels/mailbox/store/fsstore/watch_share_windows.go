package fsstore

import (
	"net"
)

// listenShare does not share on windows, where the folder store does not
// run.
func listenShare(string) (*net.UnixListener, error) { return nil, errNoShare }

// dialShareConn does not share on windows.
func dialShareConn(string) (net.Conn, error) { return nil, errNoShare }
