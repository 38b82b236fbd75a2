package main

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The comment form's rule (docs/spec.md §3.9), the twin of workload::comment: which requests
// carry a form, how its body decodes, what a valid comment is and the answer to anything
// else. Vectors: ../workload/testdata/comment-forms.json (the Rust apps' rule checks them too).
const (
	formContentType = "application/x-www-form-urlencoded"
	formLimit       = 16 << 10 // bytes
	authorMaxChars  = 80       // after trimming
	bodyMaxChars    = 2000     // after trimming
)

// formError is a request that is not a valid comment: a 4xx with a plain-text body, and
// nothing sent to the database.
type formError struct {
	status  int
	message string
}

func (e *formError) Error() string { return strings.TrimSuffix(e.message, "\n") }

var (
	errNotAForm  = &formError{415, "a comment must be sent as application/x-www-form-urlencoded\n"}
	errTooLarge  = &formError{413, "a comment form must be at most 16384 bytes\n"}
	errMalformed = &formError{400, "the comment form is not valid form encoding\n"}
)

type newComment struct {
	authorName string
	body       string
}

// isForm reports whether a Content-Type value names a form: its media type (before any ';',
// without surrounding spaces or tabs) is formContentType in any ASCII case.
func isForm(contentType string) bool {
	mediaType, _, _ := strings.Cut(contentType, ";")
	mediaType = strings.Trim(mediaType, " \t")
	if len(mediaType) != len(formContentType) {
		return false
	}
	for i := 0; i < len(mediaType); i++ {
		c := mediaType[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != formContentType[i] {
			return false
		}
	}
	return true
}

// parseComment decodes and checks a form body. Pieces are split on '&' (empty ones skipped)
// and at the first '='; '+' is a space and %XX a byte (url.QueryUnescape); a bad escape
// anywhere makes the form malformed; the first author_name and the first body count. Each
// field is then checked, author_name first.
func parseComment(body []byte) (newComment, error) {
	if len(body) > formLimit {
		return newComment{}, errTooLarge
	}
	var author, text string
	var haveAuthor, haveText bool
	for _, piece := range strings.Split(string(body), "&") {
		if piece == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(piece, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			return newComment{}, errMalformed
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return newComment{}, errMalformed
		}
		switch {
		case key == "author_name" && !haveAuthor:
			author, haveAuthor = value, true
		case key == "body" && !haveText:
			text, haveText = value, true
		}
	}
	author, err := checkField("author_name", authorMaxChars, author, haveAuthor)
	if err != nil {
		return newComment{}, err
	}
	text, err = checkField("body", bodyMaxChars, text, haveText)
	if err != nil {
		return newComment{}, err
	}
	return newComment{authorName: author, body: text}, nil
}

// checkField returns the trimmed value: present, UTF-8, without NUL (PostgreSQL's text
// cannot hold one), not empty after trimming white space, at most maxChars characters.
func checkField(name string, maxChars int, value string, present bool) (string, error) {
	if !present {
		return "", &formError{400, name + " is required\n"}
	}
	if !utf8.ValidString(value) {
		return "", &formError{400, name + " must be valid UTF-8\n"}
	}
	if strings.ContainsRune(value, 0) {
		return "", &formError{400, name + " must not contain NUL characters\n"}
	}
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return "", &formError{400, name + " is required\n"}
	}
	if utf8.RuneCountInString(trimmed) > maxChars {
		return "", &formError{400, name + " must be at most " + strconv.Itoa(maxChars) + " characters\n"}
	}
	return trimmed, nil
}
