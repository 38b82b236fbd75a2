package main

import (
	"net/url"
	"strings"
)

// path is a request path split into its segments, each percent-decoded on its own, as Go's
// ServeMux matches a path: an encoded '/' stays inside its segment, and a segment that does
// not decode is kept as sent (and so is no slug). It is built from the path as sent
// (URI.PathOriginal): fasthttp's ctx.Path() decodes the whole path first and removes empty
// and dot segments (uri.go, normalizePath), which would make POST /posts/{slug}%2Fcomments
// the comment route.
type path []string

func segments(raw []byte) path {
	rest, ok := strings.CutPrefix(string(raw), "/")
	if !ok { // not origin-form: net/http refuses it, and no route matches it here
		return nil
	}
	p := path(strings.Split(rest, "/"))
	for i, segment := range p {
		if decoded, err := url.PathUnescape(segment); err == nil {
			p[i] = decoded
		}
	}
	return p
}

// slugPattern in a pattern matches any one segment, the slug the route hands on.
const slugPattern = "{slug}"

// is reports whether p has the segments of pattern: "/posts/{slug}" is is("posts", "{slug}"),
// "/" is is(""), "/cached/" is is("cached", "").
func (p path) is(pattern ...string) bool {
	if len(p) != len(pattern) {
		return false
	}
	for i, want := range pattern {
		if want != slugPattern && p[i] != want {
			return false
		}
	}
	return true
}
