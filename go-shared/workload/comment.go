package workload

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The comment form's rule (docs/spec.md §3.9), the twin of workload::comment: which requests
// carry a form, how its body decodes, what a valid comment is and the answer to anything
// else. Vectors: ../../workload/testdata/comment-forms.json (the Rust apps' rule checks them
// too).
const (
	FormContentType = "application/x-www-form-urlencoded"
	FormLimit       = 16 << 10 // bytes
	AuthorMaxChars  = 80       // after trimming
	BodyMaxChars    = 2000     // after trimming
)

// FormError is a request that is not a valid comment: a 4xx with a plain-text body, and
// nothing sent to the database.
type FormError struct {
	Status  int
	Message string
}

func (e *FormError) Error() string { return strings.TrimSuffix(e.Message, "\n") }

// The refusals of the whole form, in the order the comment route checks them (§3.9): the
// Content-Type, the size, then the encoding.
var (
	ErrNotAForm  = &FormError{415, "a comment must be sent as application/x-www-form-urlencoded\n"}
	ErrTooLarge  = &FormError{413, "a comment form must be at most 16384 bytes\n"}
	ErrMalformed = &FormError{400, "the comment form is not valid form encoding\n"}
)

// Comment is a comment that passed the rule, its fields trimmed.
type Comment struct {
	AuthorName string
	Body       string
}

// IsForm reports whether a Content-Type value names a form: its media type (before any ';',
// without surrounding spaces or tabs) is FormContentType in any ASCII case.
func IsForm(contentType string) bool {
	mediaType, _, _ := strings.Cut(contentType, ";")
	mediaType = strings.Trim(mediaType, " \t")
	if len(mediaType) != len(FormContentType) {
		return false
	}
	for i := 0; i < len(mediaType); i++ {
		c := mediaType[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != FormContentType[i] {
			return false
		}
	}
	return true
}

// ParseComment decodes and checks a form body. Pieces are split on '&' (empty ones skipped)
// and at the first '='; '+' is a space and %XX a byte (url.QueryUnescape); a bad escape
// anywhere makes the form malformed; the first author_name and the first body count. Each
// field is then checked, author_name first. A body over FormLimit is ErrTooLarge.
func ParseComment(body []byte) (Comment, error) {
	if len(body) > FormLimit {
		return Comment{}, ErrTooLarge
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
			return Comment{}, ErrMalformed
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return Comment{}, ErrMalformed
		}
		switch {
		case key == "author_name" && !haveAuthor:
			author, haveAuthor = value, true
		case key == "body" && !haveText:
			text, haveText = value, true
		}
	}
	author, err := checkField("author_name", AuthorMaxChars, author, haveAuthor)
	if err != nil {
		return Comment{}, err
	}
	text, err = checkField("body", BodyMaxChars, text, haveText)
	if err != nil {
		return Comment{}, err
	}
	return Comment{AuthorName: author, Body: text}, nil
}

// checkField returns the trimmed value: present, UTF-8, without NUL (PostgreSQL's text
// cannot hold one), not empty after trimming white space, at most maxChars characters.
func checkField(name string, maxChars int, value string, present bool) (string, error) {
	if !present {
		return "", &FormError{400, name + " is required\n"}
	}
	if !utf8.ValidString(value) {
		return "", &FormError{400, name + " must be valid UTF-8\n"}
	}
	if strings.ContainsRune(value, 0) {
		return "", &FormError{400, name + " must not contain NUL characters\n"}
	}
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return "", &FormError{400, name + " is required\n"}
	}
	if utf8.RuneCountInString(trimmed) > maxChars {
		return "", &FormError{400, name + " must be at most " + strconv.Itoa(maxChars) + " characters\n"}
	}
	return trimmed, nil
}
