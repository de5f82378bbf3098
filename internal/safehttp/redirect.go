package safehttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The redirect policies a target may choose (follow_redirects).
const (
	// Never follows no redirect: the 3xx answer is the response, and the
	// caller counts it as a redirect (a failure of its own kind).
	Never = "never"
	// SameHost follows a redirect only to the same scheme, host and port
	// as the original request, at most MaxRedirects times.
	SameHost = "same-host"
)

// Policies are the accepted values of follow_redirects, the default first.
var Policies = []string{Never, SameHost}

// MaxRedirects bounds a chain of same-host redirects.
const MaxRedirects = 5

// RedirectError is a redirect that the policy refused to follow.
type RedirectError struct {
	// Status is the redirect's HTTP status, Location where it pointed
	// (as the server wrote it: scrub it before printing).
	Status   int
	Location string
	Reason   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("HTTP %d redirect to %s: %s", e.Status, e.Location, e.Reason)
}

// CheckRedirect is an http.Client's CheckRedirect for policy: with Never
// (or ""), the 3xx answer is returned as the response
// (http.ErrUseLastResponse); with SameHost, a redirect to another scheme,
// host or port, or a chain longer than MaxRedirects, stops with a
// *RedirectError.
func CheckRedirect(policy string) func(req *http.Request, via []*http.Request) error {
	if policy != SameHost {
		return func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return func(req *http.Request, via []*http.Request) error {
		status, loc := 0, req.URL.String()
		if req.Response != nil {
			status = req.Response.StatusCode
			if l := req.Response.Header.Get("Location"); l != "" {
				loc = l
			}
		}
		switch {
		case len(via) == 0:
			return nil
		case !SameOrigin(via[0].URL, req.URL):
			return &RedirectError{Status: status, Location: loc, Reason: "another host than the target's; follow_redirects = \"same-host\" follows only the target's own"}
		case len(via) > MaxRedirects:
			return &RedirectError{Status: status, Location: loc, Reason: fmt.Sprintf("more than %d redirects in a row", MaxRedirects)}
		}
		return nil
	}
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (the port written or implied by the scheme).
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// IsRedirect reports whether err is a redirect the policy refused.
func IsRedirect(err error) (*RedirectError, bool) {
	var re *RedirectError
	ok := errors.As(err, &re)
	return re, ok
}

// Location is where a 3xx response points, "" when it is not a redirect.
func Location(resp *http.Response) string {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return ""
	}
	return resp.Header.Get("Location")
}

// Guard is an http.RoundTripper that sets header on the requests that go
// to origin's scheme, host and port, and on no other: whatever follows a
// redirect, a credential never reaches another host.
type Guard struct {
	Base   http.RoundTripper
	Origin *url.URL
	Header http.Header
}

// RoundTrip sends a copy of req, with the header set when req goes to the
// origin.
func (g *Guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(g.Header) == 0 || g.Origin == nil || !SameOrigin(g.Origin, req.URL) {
		return g.Base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for k, v := range g.Header {
		r.Header[k] = append([]string(nil), v...)
	}
	return g.Base.RoundTrip(r)
}

// CloseIdleConnections closes the base transport's idle connections.
func (g *Guard) CloseIdleConnections() {
	if c, ok := g.Base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
