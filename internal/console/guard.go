package console

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// guard refuses a request that does not name this console: its Host
// header must be the address the request reached (or, on loopback, any
// loopback address or localhost, or one of AllowHosts, on that port), and
// its Origin, when it has one, that same host. A web page of another site
// whose name was made to resolve to the console's address (DNS
// rebinding) sends its own name as Host and is refused, as is a page of
// another origin.
func (c *Console) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !c.hostAllowed(r):
			c.cfg.Logger.Warn("console request refused: foreign Host", "host", r.Host, "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, "refused: the request names another host ("+r.Host+"): open the console at the address it printed")
			return
		case !originAllowed(r):
			c.cfg.Logger.Warn("console request refused: foreign Origin", "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
			writeError(w, http.StatusForbidden, "refused: the request comes from another site")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// localAddr is the address r reached, nil when it is not known (a
// request not served by net/http's server).
func localAddr(r *http.Request) *net.TCPAddr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return a
}

// reachedLoopback reports whether r reached a loopback address.
func reachedLoopback(r *http.Request) bool {
	a := localAddr(r)
	return a != nil && a.IP.IsLoopback()
}

// hostAllowed reports whether r's Host names the address it reached (see
// guard). A request whose address is not known is refused.
func (c *Console) hostAllowed(r *http.Request) bool {
	local := localAddr(r)
	if local == nil {
		return false
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	if port != strconv.Itoa(local.Port) {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip := net.ParseIP(host); ip != nil {
		return ip.Equal(local.IP) || ip.IsLoopback() && local.IP.IsLoopback()
	}
	if host == "localhost" {
		return local.IP.IsLoopback()
	}
	return slices.ContainsFunc(c.cfg.AllowHosts, func(h string) bool { return strings.EqualFold(h, host) })
}

// originAllowed reports whether r has no Origin, or one whose host is
// r's Host (which hostAllowed checked).
func originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}
