package main

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"strings"
	"time"
)

// The data each page template renders, as in templates/src/views.rs: dates are formatted
// here (docs/spec.md §2: YYYY-MM-DD, comment times YYYY-MM-DD HH:MM, UTC) so every engine prints the
// same text.

type tagLink struct {
	Name string
	Slug string
}

// postCard is a post in a list. CommentCount is shown on the home page only.
type postCard struct {
	Title        string
	Slug         string
	Author       string
	Date         string
	Excerpt      string
	Tags         []tagLink
	CommentCount int64
}

type homePage struct {
	Posts []postCard
}

type commentView struct {
	Author string
	Time   string
	Body   string
}

type postPage struct {
	Title      string
	Author     string
	Date       string
	Tags       []tagLink
	Paragraphs []string // the body split on blank lines, one <p> each
	Comments   []commentView
}

type tagPage struct {
	Name      string
	Slug      string
	PostCount int64
	Posts     []postCard
}

func date(t time.Time) string   { return t.UTC().Format("2006-01-02") }
func minute(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// paragraphs splits a post body on blank lines.
func paragraphs(body string) []string { return strings.Split(body, "\n\n") }

// cards builds the list entries for posts, with their tags grouped by post id (in query
// order) and their comment counts (0 for a post with no row; nil on the tag page).
func cards(posts []postSummary, tags []postTag, counts map[int32]int64) []postCard {
	tagsByPost := make(map[int32][]tagLink, len(posts))
	for _, t := range tags {
		tagsByPost[t.PostID] = append(tagsByPost[t.PostID], tagLink{Name: t.Name, Slug: t.Slug})
	}
	out := make([]postCard, len(posts))
	for i, p := range posts {
		out[i] = postCard{
			Title:        p.Title,
			Slug:         p.Slug,
			Author:       p.AuthorName,
			Date:         date(p.PublishedAt),
			Excerpt:      p.Excerpt,
			Tags:         tagsByPost[p.ID],
			CommentCount: counts[p.ID],
		}
	}
	return out
}

//go:embed templates/*.html
var templateFiles embed.FS

// One template set per page: base.html plus the page's file. Execute "base.html".
var (
	homeTemplate     = parsePage("home.html")
	postTemplate     = parsePage("post.html")
	tagTemplate      = parsePage("tag.html")
	notFoundTemplate = parsePage("not_found.html")
)

func parsePage(name string) *template.Template {
	return template.Must(template.ParseFS(templateFiles, "templates/base.html", "templates/"+name))
}

// render executes a page template set into memory, so the response can carry its length.
func render(t *template.Template, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "base.html", data); err != nil {
		return nil, fmt.Errorf("%w: %v", errRender, err)
	}
	return buf.Bytes(), nil
}
